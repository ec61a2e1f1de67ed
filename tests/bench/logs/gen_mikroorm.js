#!/usr/bin/env node
'use strict';
/*
 * Event log of MikroORM 6.6.16 (npm `@mikro-orm/core`, `@mikro-orm/knex`
 * and `@mikro-orm/mysql`, CommonJS built by tsc) over the pure JavaScript
 * MySQL driver `mysql2` 3.20.0 (installed with --ignore-scripts: no native
 * module), against a throw-away MariaDB server from Debian 12's
 * `mariadb-server` (1:10.11.x) that the generator starts for the run.
 * Entities are plain JavaScript `EntitySchema` definitions: no TypeScript,
 * no decorators.
 *
 *   node gen_mikroorm.js --repo                    # prints the dir to index
 *   node gen_mikroorm.js --out .deps/logs/mikroorm.csv.gz [--cases 900] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/@mikro-orm (truth paths
 * `@mikro-orm/core/...`, `@mikro-orm/knex/...`, `@mikro-orm/mysql/...`): the
 * three packages that run.  `core` logs discovery, connection and query
 * lines, `knex` the transaction statements and the schema comparator's
 * lines; `mysql` logs nothing itself but is the driver the application
 * names, so it is indexed with the others (its `.d.ts` and `index.mjs`
 * files come along, as they are part of each package).  The `knex` query
 * builder library itself (npm `knex`) logs through its own `debug` copy,
 * which nothing turns on, and prints pool warnings to the console (the
 * connection-loss steps): it is neither indexed nor captured.
 *
 * Server: as in gen_sequelize.js, `mariadb-install-db` makes a data
 * directory in a temp dir (on /dev/shm when it is writable, else in the OS
 * temp dir), then `mariadbd` (or `mysqld`) runs as root (`--user=root`) on a
 * private Unix socket in that dir and on a free 127.0.0.1 port, without
 * binary log and with relaxed flushing; it is killed and the dir removed at
 * exit.  An admin connection (mysql2 directly, as root over the socket;
 * nothing of it is captured) creates the users `app` (all privileges) and
 * `reader` (SELECT only, for the read replicas of some applications),
 * creates and drops the applications' databases and kills their pooled
 * connections from the server side in the connection-loss steps.
 *
 * Logging: MikroORM logs through one `Logger` object per configuration
 * (`config.getLogger()`), made by the `loggerFactory` option (default
 * `DefaultLogger.create`) with the `logger` option as its writer (default
 * `console.log`).  Its callers hand it a namespace first and the message
 * second: `logger.log('discovery', '- processing entity Author')`,
 * `logger.log('info', 'MikroORM successfully connected to database ...')`,
 * `logger.error('info', ...)`, `logger.warn('deprecated', ..., {label})`,
 * `logger.log('schema', ...)`, and `logger.logQuery(context)` for SQL (the
 * statement, its parameters inlined when the `query-params` namespace is on,
 * and `[took N ms, M results]` / `[took N ms, M rows affected]` appended by
 * `DefaultLogger.logQuery` when the duration is known; `(via read
 * connection 'read-1')` with replicas; a `(label) ` before the message when
 * the context has one).  The logger checks its namespaces (`debug: true` or
 * a list) and writes `[namespace] message` with the writer.
 *
 * Capture: each application hands MikroORM its own `loggerFactory`, which
 * makes the logger MikroORM would make (`DefaultLogger`, or `SimpleLogger`,
 * which prints queries without the `[took ...]` suffix, as drawn per
 * application) and replaces its four logging methods (`log`, `error`,
 * `warn`, `logQuery`) on the instance by functions that call the original
 * and collect what it writes meanwhile through the application's writer (the
 * `logger` option).  A call that writes makes one record; a call the logger
 * filters out (namespace off, `enabled: false` in a query's `logging`
 * option) makes none.  The emitter is the caller of the logging method: a
 * logging method called by another one (`error` -> `log`, `logQuery` ->
 * `log`) is left to the outer call.  Activity = the written line without the
 * `[namespace] ` prefix the logger puts first (colours are off: `colors:
 * false`, as for a log file); logger = the namespace (`query` for
 * `logQuery`); level = INFO, WARNING or ERROR from the call (`warn`,
 * `error`, or the context's `level`: a failed query is logged at `error`).
 * Records of an application that is closed while a later case runs are
 * dropped and counted.  MikroORM also has three console prints (`Utils`: a
 * JIT compilation or run-time error, a missing optional module);
 * console.log/info/warn/error are replaced by functions that record what
 * they print (logger `console`) when the call site is in the indexed dir,
 * and count and swallow everything else (knex's warnings).  None of
 * MikroORM's is reached here.
 *
 * Wrappers (frames skipped, their caller is the emitter, code.wrapped=1):
 *   - `Connection.logQuery` (@mikro-orm/core/connections/Connection.js): it
 *     only forwards the statement and the context its caller hands it to
 *     `logger.logQuery`, adding the default level and the connection's type
 *     and name (rendered only with replicas).  Its callers are
 *     `Connection.executeQuery`, which runs the statement and logs it with
 *     its duration and result count (or at `error` when it fails), and
 *     `AbstractSqlConnection.begin`/`commit`/`rollback` (`begin`,
 *     `savepoint trx1`, `commit`, `release savepoint ...`, `rollback`, ...).
 *   - `SchemaComparator.log` (@mikro-orm/knex/schema/SchemaComparator.js):
 *     the method only appends `util.inspect` of its second argument to the
 *     message and calls `logger.log('schema', ...)`; the arrow `log` that
 *     `diffColumn` makes only copies its arguments, drops undefined fields
 *     and calls that method (when a table name is known).  Both are named
 *     `log`.
 *   The logger classes (`DefaultLogger`, `SimpleLogger`, in core/logging)
 *   are the logging machinery: never emitters.
 *
 * A case is one unit of application work with its own seeded PRNG.  The
 * run is a sequence of application lifetimes (one MikroORM instance each,
 * 18-45 work cases long); the first case of a lifetime starts the
 * application, the last one stops it, and each case in between works on an
 * `em.fork()` of its own:
 *   - start (about 25 cases): the application's plan and a MikroORM
 *     instance.  Entity kinds from a library domain (Author, Book,
 *     Publisher, Tag, Review, Category) and a shop domain (Customer, Order,
 *     Product, OrderLine, Tag, Category): ManyToOne with drawn delete rules,
 *     OneToMany (some with orphan removal or cascaded removal), ManyToMany
 *     with default or named pivot tables, a self-referencing category tree;
 *     optional properties, version properties, unique columns, indexes,
 *     check constraints, table and column comments, enums, filters and a
 *     hook that refuses a value.  Either a fresh database (made by the
 *     admin, or by MikroORM itself through `ensureDatabase`) or the previous
 *     application's database, with the same definitions (a redeploy) or
 *     changed ones (an upgrade: properties added and dropped, lengths,
 *     defaults, nullability, indexes, checks, comments, enum items,
 *     versions, delete rules, a new kind).  Discovery from the list of
 *     schemas, from a folder of CommonJS entity files (files skipped by name
 *     or by what they export; a redeploy reads the same folder), synchronous
 *     (`initSync`, then `connect()` or a lazy connection), or from a config
 *     file named by `--config` on the command line (MikroORM's deprecation
 *     warning D0001, unless `ignoreDeprecations`); `connect: false` then
 *     `connect()`.  Options: `debug` true for all namespaces or a list of
 *     them, DefaultLogger or SimpleLogger, the Unix socket or TCP, pool
 *     sizes, batch sizes, batch inserts and updates off, load strategy,
 *     implicit transactions off, `forceUtcTimezone`, `populateAfterFlush`,
 *     an `onQuery` hook appending a comment; sometimes read replicas (the
 *     `reader` user), a second ORM reusing the first one's knex client, or a
 *     first attempt at a closed port (`MikroORM failed to connect ...`).
 *     Then the schema through the SchemaGenerator (created, refreshed,
 *     updated, or its SQL generated and executed; a reused database
 *     updated, so the schema comparator logs each difference it finds,
 *     including the column defaults MariaDB reports differently from
 *     MySQL), and sometimes a first flush of seed entities;
 *   - work (about 845 cases): a fork (sometimes with a `loggerContext`
 *     label, or with transactions disabled) and 6-14 steps, most of one
 *     theme: persisting new entity graphs and flushing (batched inserts,
 *     pivot rows), `insertMany`, native inserts, upserts (`on duplicate key
 *     update`, `insert ignore`); finds with where/orderBy/limit/fields,
 *     `findOne`/`findOneOrFail`, populate (joined or select-in), `populate`
 *     after loading, `findAndCount`, `count`, `findByCursor`, `refresh`,
 *     references, filters, collection `init`/`loadCount`/`matching`/
 *     `loadItems`, the result cache; QueryBuilder selects, joins,
 *     aggregates with `having`, subqueries, raw conditions, updates,
 *     deletes, inserts; changes flushed through the unit of work (versioned
 *     updates, batched `case when` updates), `assign`, `nativeUpdate`,
 *     collection changes, moved references; removals with cascades and
 *     orphan removal, `nativeDelete`, removed references; transactions
 *     (`em.transactional` with isolation levels, nested ones with
 *     savepoints that commit or roll back, explicit begin/commit/rollback,
 *     read-only ones refusing a write, callbacks that throw), pessimistic
 *     locks (`for update`, `lock in share mode`, `skip locked`);
 *     optimistic-lock conflicts between two forks, `em.lock` with a stale
 *     version, `for update nowait` refused while another fork holds the
 *     row; unique, not-null, foreign-key, too-long and syntax errors,
 *     missing tables and columns; raw SQL through `em.execute` and the
 *     connection's `execute`; schema updates and generated SQL,
 *     `clearDatabase`, `refreshDatabase`; the server killing the pooled
 *     connections.  Some queries get a `logging` option that turns them
 *     off, labels them or narrows their namespaces.  The application
 *     catches every error and logs nothing of its own;
 *   - stop (about 25 cases): a last unit of work (1-3 steps), sometimes
 *     dropping the schema or the database, then `orm.close()`, sometimes
 *     followed by a late query on the closed ORM.
 * Cases with fewer than 3 records are dropped.
 *
 * Messages contain generated names, dates, durations, ports, temp paths and
 * auto-increment ids: a regenerated log is close to, not equal to, an
 * earlier one.  PMRAG_TIMING=1 prints one line per case to stderr;
 * PMRAG_VERBOSE=1 prints unexpected step failures, the console prints from
 * outside MikroORM and a table of the errors the steps met.
 */
const fs = require('fs');
const path = require('path');
const util = require('util');
const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'mikroorm', 900);
const NM = path.join(args.deps, 'node_modules');
const SCOPE = path.join(NM, '@mikro-orm');
for (const p of ['core', 'knex', 'mysql']) {
  if (!fs.existsSync(path.join(SCOPE, p, 'package.json')) || !fs.existsSync(path.join(NM, 'mysql2', 'package.json'))) {
    process.stderr.write(`missing ${path.join(SCOPE, p)} or mysql2: run npm ci in ${args.deps}\n`);
    process.exit(1);
  }
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(SCOPE) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_mikroorm.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const VERBOSE = !!process.env.PMRAG_VERBOSE;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// MikroORM reads MIKRO_ORM_* variables as configuration (and a `.env` file
// in the base dir, which is each application's temp dir): none of the
// machine's may leak into the run.
for (const k of Object.keys(process.env)) if (k.startsWith('MIKRO_ORM_')) delete process.env[k];

// ---------------------------------------------------------------------------
// The MariaDB server of the run (_mariadb.js, as gen_sequelize.js's).
const { MariaDB, freePort } = require('./_mariadb');

// ---------------------------------------------------------------------------
// Capture.
const log = new cap.EventLog(args.out, {
  indexDir: SCOPE,
  wrappers: [['@mikro-orm/core/connections/Connection.js', 'logQuery'],
    ['@mikro-orm/knex/schema/SchemaComparator.js', 'log']],
  machinery: [path.join(SCOPE, 'core', 'logging')],
});

const mysql = require(path.join(NM, 'mysql2', 'promise'));
const core = require(path.join(SCOPE, 'core'));
const { MikroORM, MySqlDriver } = require(path.join(SCOPE, 'mysql'));
const { EntitySchema, DefaultLogger, SimpleLogger, LockMode, IsolationLevel, QueryOrder, Cascade, wrap } = core;

// While a logging method runs, what the application's writer receives goes
// to SINK; a logging method called while SINK is set is an inner call.
let SINK = null;
let foreign = 0; // records of an application closed before the case
let unsunk = 0; // writes outside a logging method (none expected)
const LEVEL = { info: 'INFO', warning: 'WARNING', error: 'ERROR' };

function instrumentLogger(logger, app) {
  for (const m of ['log', 'error', 'warn', 'logQuery']) {
    const orig = logger[m];
    const entry = function mikroLoggerCall(...a) {
      if (SINK) return orig.apply(this, a);
      const sink = [];
      SINK = sink;
      let r;
      try { r = orig.apply(this, a); } finally { SINK = null; }
      if (!sink.length) return r;
      if (app.closedIn !== null && app.closedIn !== log.caseId) { foreign++; return r; }
      const ns = m === 'logQuery' ? 'query' : String(a[0]);
      const c = (m === 'logQuery' ? a[0] : a[2]) || {};
      const level = m === 'error' ? 'ERROR' : m === 'warn' ? 'WARNING' : (LEVEL[c.level] || 'INFO');
      const head = `[${ns}] `;
      for (const line of sink) log.record(line.startsWith(head) ? line.slice(head.length) : line, level, ns, entry);
      return r;
    };
    logger[m] = entry;
  }
  return logger;
}

// MikroORM also prints a few things with console.warn/error (JIT errors,
// optional modules missing): recorded when the call site is in the indexed
// dir (logger `console`); everything else printed (knex's pool warnings) is
// swallowed and counted.  The generator itself never prints through console.
let stray = 0;
const CONSOLE_LEVEL = { log: 'INFO', info: 'INFO', warn: 'WARNING', error: 'ERROR' };
for (const m of Object.keys(CONSOLE_LEVEL)) {
  const f = function capturedConsole(...a) {
    let msg;
    try { msg = util.format(...a); } catch (e) { msg = String(a[0]); }
    if (!log.record(msg, CONSOLE_LEVEL[m], 'console', f)) { stray++; if (VERBOSE) process.stderr.write(`stray ${m}: ${msg.slice(0, 200)}\n`); }
  };
  console[m] = f;
}

function loggerOptionsFor(app) {
  return {
    logger: (line) => { if (SINK) SINK.push(String(line)); else unsunk++; },
    loggerFactory: (o) => instrumentLogger(app.simpleLogger ? new SimpleLogger(o) : new DefaultLogger(o), app),
  };
}

// ---------------------------------------------------------------------------
// Entity kinds: two domains, library and shop, sharing Tag and Category.
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'gale', 'harbor', 'iris', 'juniper', 'kite',
  'lumen', 'maple', 'nova', 'orbit', 'pine', 'quartz', 'raven', 'sierra', 'tide', 'umber', 'vale', 'willow', 'yarrow'];
const DAY = 86400000;
const T0 = Date.UTC(2024, 0, 1);
const word = (R) => R.pick(WORDS);
const cap1 = (s) => s[0].toUpperCase() + s.slice(1);
const dateIn = (R) => new Date(T0 + R.int(0, 400) * DAY + R.int(0, 86399) * 1000);
const created = () => ({ type: 'datetime', onCreate: () => new Date() });
const updated = () => ({ type: 'datetime', onCreate: () => new Date(), onUpdate: () => new Date() });

// str/num/flag: the string, number and boolean property every kind has
// (steps query and change them without knowing the kind); uniq: the unique one.
const KINDS = {
  Author: {
    str: 'name', num: 'age', flag: 'active', uniq: 'name', versioned: 0.8,
    core: () => ({
      name: { type: 'string', length: 80, unique: true },
      email: { type: 'string', length: 120, nullable: true },
      age: { type: 'integer', nullable: true },
      active: { type: 'boolean', default: true },
    }),
    opt: () => ({
      bio: { type: 'text', nullable: true },
      born: { type: 'date', nullable: true },
      rating: { type: 'double', nullable: true },
      // MariaDB's JSON is LONGTEXT with a json_valid() check of the column's
      // name, which the mysql driver would take for a stray check to drop
      settings: { type: 'json', columnType: 'longtext', nullable: true },
      createdAt: created(),
      updatedAt: updated(),
    }),
    row: (R, n, has) => {
      const u = `${word(R)}_${n}`;
      const r = { name: u, email: `${u}@example.${R.pick(['org', 'com', 'net'])}`, age: R.int(18, 90), active: R.chance(0.8) };
      if (has.bio && R.chance(0.6)) r.bio = `${cap1(word(R))} writes about ${word(R)} and ${word(R)}.`;
      if (has.born && R.chance(0.7)) r.born = `19${R.int(40, 99)}-0${R.int(1, 9)}-1${R.int(0, 9)}`;
      if (has.rating) r.rating = R.int(0, 50) / 10;
      if (has.settings && R.chance(0.5)) r.settings = { theme: R.pick(['dark', 'light']), newsletter: R.chance(0.5) };
      return r;
    },
  },
  Book: {
    str: 'title', num: 'pages', flag: 'published', uniq: 'isbn', versioned: 0.3,
    core: () => ({
      title: { type: 'string', length: 160 },
      isbn: { type: 'string', length: 20, unique: true },
      pages: { type: 'integer', default: 0 },
      published: { type: 'boolean', default: false },
    }),
    opt: () => ({
      price: { type: 'decimal', precision: 10, scale: 2, nullable: true },
      publishedAt: { type: 'datetime', nullable: true },
      meta: { type: 'json', columnType: 'longtext', nullable: true },
      genre: { enum: true, items: ['fiction', 'poetry', 'history', 'science'], nullable: true },
      createdAt: created(),
    }),
    row: (R, n, has) => {
      const r = { title: `${cap1(word(R))} of ${cap1(word(R))} ${n}`, isbn: `978-${n}-${R.int(1000, 9999)}`,
        pages: R.int(40, 900), published: R.chance(0.6) };
      if (has.price) r.price = (R.int(100, 9000) / 100).toFixed(2);
      if (has.publishedAt && r.published) r.publishedAt = dateIn(R);
      if (has.meta && R.chance(0.5)) r.meta = { edition: R.int(1, 5), lang: R.pick(['en', 'de', 'fr']) };
      if (has.genre) r.genre = R.pick(['fiction', 'poetry', 'history', 'science']);
      return r;
    },
  },
  Publisher: {
    str: 'name', num: 'founded', flag: 'independent', uniq: 'name', versioned: 0,
    core: () => ({
      name: { type: 'string', length: 120, unique: true },
      founded: { type: 'integer', nullable: true },
      independent: { type: 'boolean', default: false },
    }),
    opt: () => ({ country: { type: 'string', length: 2, nullable: true }, website: { type: 'string', nullable: true } }),
    row: (R, n, has) => {
      const r = { name: `${cap1(word(R))} Press ${n}`, founded: R.int(1820, 2020), independent: R.chance(0.4) };
      if (has.country) r.country = R.pick(['DE', 'FR', 'GB', 'US', 'NL']);
      if (has.website && R.chance(0.7)) r.website = `https://${word(R)}${n}.example.org`;
      return r;
    },
  },
  Tag: {
    str: 'name', num: 'uses', flag: 'featured', uniq: 'name', versioned: 0,
    core: () => ({
      name: { type: 'string', length: 40, unique: true },
      uses: { type: 'integer', default: 0 },
      featured: { type: 'boolean', default: false },
    }),
    opt: () => ({ color: { type: 'string', length: 7, nullable: true } }),
    row: (R, n, has) => {
      const r = { name: `${word(R)}-${n}`, uses: R.int(0, 100), featured: R.chance(0.2) };
      if (has.color) r.color = `#${R.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
      return r;
    },
  },
  Review: {
    str: 'body', num: 'rating', flag: 'verified', uniq: null, versioned: 0,
    core: () => ({
      body: { type: 'string', length: 500 },
      rating: { type: 'integer' },
      verified: { type: 'boolean', default: false },
    }),
    opt: () => ({ createdAt: created(), ip: { type: 'string', length: 45, nullable: true } }),
    row: (R, n, has) => {
      const r = { body: `${cap1(word(R))}, ${word(R)} and ${word(R)} (${n})`, rating: R.int(1, 5), verified: R.chance(0.3) };
      if (has.ip) r.ip = `10.${R.int(0, 255)}.${R.int(0, 255)}.${R.int(1, 254)}`;
      return r;
    },
  },
  Category: {
    str: 'name', num: 'position', flag: 'visible', uniq: null, versioned: 0,
    core: () => ({
      name: { type: 'string', length: 60 },
      position: { type: 'integer', default: 0 },
      visible: { type: 'boolean', default: true },
    }),
    opt: () => ({ slug: { type: 'string', length: 80, nullable: true } }),
    row: (R, n, has) => {
      const r = { name: `${cap1(word(R))} ${n}`, position: R.int(0, 20), visible: R.chance(0.85) };
      if (has.slug) r.slug = `${word(R)}-${n}`;
      return r;
    },
  },
  Customer: {
    str: 'email', num: 'points', flag: 'vip', uniq: 'email', versioned: 0.5,
    core: () => ({
      email: { type: 'string', length: 120, unique: true },
      points: { type: 'integer', default: 0 },
      vip: { type: 'boolean', default: false },
    }),
    opt: () => ({
      fullName: { type: 'string', length: 100, nullable: true },
      phone: { type: 'string', length: 30, nullable: true },
      createdAt: created(),
      updatedAt: updated(),
    }),
    row: (R, n, has) => {
      const r = { email: `${word(R)}.${n}@shop.example`, points: R.int(0, 5000), vip: R.chance(0.15) };
      if (has.fullName) r.fullName = `${cap1(word(R))} ${cap1(word(R))}`;
      if (has.phone && R.chance(0.6)) r.phone = `+49 30 ${R.int(100000, 999999)}`;
      return r;
    },
  },
  Product: {
    str: 'sku', num: 'stock', flag: 'available', uniq: 'sku', versioned: 0.5,
    core: () => ({
      sku: { type: 'string', length: 32, unique: true },
      stock: { type: 'integer', default: 0 },
      available: { type: 'boolean', default: true },
    }),
    opt: () => ({
      price: { type: 'decimal', precision: 10, scale: 2, nullable: true },
      weight: { type: 'double', nullable: true },
      description: { type: 'text', nullable: true },
    }),
    row: (R, n, has) => {
      const r = { sku: `SKU-${n}-${R.int(100, 999)}`, stock: R.int(0, 400), available: R.chance(0.85) };
      if (has.price) r.price = (R.int(50, 50000) / 100).toFixed(2);
      if (has.weight) r.weight = R.int(1, 5000) / 100;
      if (has.description && R.chance(0.5)) r.description = `${cap1(word(R))} ${word(R)} for ${word(R)}s`;
      return r;
    },
  },
  Order: {
    str: 'code', num: 'total', flag: 'paid', uniq: 'code', versioned: 0.9,
    core: () => ({
      code: { type: 'string', length: 24, unique: true },
      total: { type: 'integer', default: 0 },
      paid: { type: 'boolean', default: false },
    }),
    opt: () => ({
      status: { enum: true, items: ['pending', 'paid', 'shipped', 'cancelled'], default: 'pending' },
      placedAt: { type: 'datetime', nullable: true },
      notes: { type: 'text', nullable: true },
    }),
    row: (R, n, has) => {
      const r = { code: `ORD-${n}-${R.int(100, 999)}`, total: R.int(100, 90000), paid: R.chance(0.5) };
      if (has.status) r.status = R.pick(['pending', 'paid', 'shipped', 'cancelled']);
      if (has.placedAt) r.placedAt = dateIn(R);
      if (has.notes && R.chance(0.3)) r.notes = `leave at ${word(R)}`;
      return r;
    },
  },
  OrderLine: {
    str: 'note', num: 'qty', flag: 'gift', uniq: null, versioned: 0,
    core: () => ({
      note: { type: 'string', length: 120, default: '' },
      qty: { type: 'integer', default: 1 },
      gift: { type: 'boolean', default: false },
    }),
    opt: () => ({ unitPrice: { type: 'decimal', precision: 10, scale: 2, nullable: true } }),
    row: (R, n, has) => {
      const r = { note: R.chance(0.3) ? `${word(R)} wrap` : `line ${n}`, qty: R.int(1, 9), gift: R.chance(0.1) };
      if (has.unitPrice) r.unitPrice = (R.int(50, 9000) / 100).toFixed(2);
      return r;
    },
  },
};

// [owner, property, target, inverse property, kind, required]
const LINKS = [
  ['Book', 'author', 'Author', 'books', 'm:1', true],
  ['Book', 'publisher', 'Publisher', 'books', 'm:1', false],
  ['Book', 'tags', 'Tag', 'books', 'm:n'],
  ['Review', 'book', 'Book', 'reviews', 'm:1', true],
  ['Category', 'parent', 'Category', 'children', 'm:1', false],
  ['Book', 'category', 'Category', 'books', 'm:1', false],
  ['Order', 'customer', 'Customer', 'orders', 'm:1', true],
  ['OrderLine', 'order', 'Order', 'lines', 'm:1', true],
  ['OrderLine', 'product', 'Product', 'lines', 'm:1', true],
  ['Product', 'tags', 'Tag', 'products', 'm:n'],
  ['Product', 'category', 'Category', 'products', 'm:1', false],
];
const REQUIRES = { Book: ['Author'], Review: ['Book'], Order: ['Customer'], OrderLine: ['Order', 'Product'] };

function closeKinds(set) {
  let grew = true;
  while (grew) {
    grew = false;
    for (const k of [...set]) for (const r of REQUIRES[k] || []) if (!set.has(r)) { set.add(r); grew = true; }
  }
  return Object.keys(KINDS).filter((k) => set.has(k));
}

function pickKinds(R) {
  const d = R.rand();
  const set = new Set();
  if (d < 0.55 || d >= 0.92) {
    set.add('Book');
    for (const k of ['Publisher', 'Tag', 'Review', 'Category']) if (R.chance(0.55)) set.add(k);
  }
  if (d >= 0.55) {
    set.add('Order');
    for (const k of ['Product', 'OrderLine', 'Tag', 'Category']) if (R.chance(0.55)) set.add(k);
  }
  return closeKinds(set);
}

// The knobs of one kind's definition; an upgraded application changes some.
function drawKnobs(R, k) {
  const s = KINDS[k];
  const has = {};
  for (const p of Object.keys(s.opt())) has[p] = R.chance(0.5);
  const strLen = s.core()[s.str].length;
  return {
    has, len: R.chance(0.7) ? strLen : strLen + R.pick([20, 40]), index: R.chance(0.4), flagDefault: s.core()[s.flag].default,
    version: R.chance(s.versioned), filter: R.chance(0.35), hook: R.chance(0.15), numNullable: !!s.core()[s.num].nullable,
    comment: R.chance(0.2), colComment: R.chance(0.2), check: R.chance(0.25), enumExtra: false,
  };
}

function upgradeKnobs(R, kn, k) {
  const x = JSON.parse(JSON.stringify(kn));
  const opts = Object.keys(x.has);
  for (let i = R.int(2, 4); i > 0; i--) {
    switch (R.int(0, 10)) {
      case 0: case 1: { const p = R.pick(opts); x.has[p] = !x.has[p]; break; }
      case 2: x.len += R.pick([-10, 20, 40]); break;
      case 3: x.index = !x.index; break;
      case 4: x.flagDefault = !x.flagDefault; break;
      case 5: x.numNullable = !x.numNullable; if (k === 'Review') x.numNullable = false; break;
      case 6: x.comment = !x.comment; break;
      case 7: x.colComment = !x.colComment; break;
      case 8: x.check = !x.check; break;
      case 9: x.enumExtra = !x.enumExtra; break;
      default: x.version = !x.version;
    }
  }
  return x;
}

// The application's EntitySchema definitions (new objects per application).
function buildSchemas(app) {
  const out = {};
  const defs = {};
  for (const k of app.kinds) {
    const s = KINDS[k];
    const kn = app.knobs[k];
    const core = s.core();
    const props = { id: { type: 'integer', primary: true, autoincrement: true } };
    for (const [p, d] of Object.entries(core)) props[p] = d;
    props[s.str].length = kn.len;
    props[s.flag].default = kn.flagDefault;
    props[s.num].nullable = kn.numNullable;
    const opt = s.opt();
    for (const p of Object.keys(opt)) if (kn.has[p]) props[p] = opt[p];
    if (kn.version) props.version = { type: 'integer', version: true };
    if (kn.colComment) props[s.str].comment = `the ${k.toLowerCase()}'s ${s.str}`;
    for (const p of Object.values(props)) if (p.enum && kn.enumExtra) p.items = p.items.concat(['archived']);
    const def = { name: k, properties: props };
    if (kn.index) def.indexes = [{ properties: [s.num] }];
    if (kn.comment) def.comment = `${k} records of the ${s.uniq ? 'catalogue' : 'application'}`;
    if (kn.check) def.checks = [{ name: `${k.toLowerCase()}_${s.num}_check`, expression: `${s.num} >= 0` }];
    if (kn.filter) {
      def.filters = {
        [s.flag]: { cond: { [s.flag]: true }, default: false },
        atLeast: { cond: (a) => ({ [s.num]: { $gte: a.min } }), default: false },
      };
    }
    if (kn.hook) {
      // a business rule of the application's: the unlucky number is refused
      const refuse = (ev) => { if (ev.entity[s.num] === 13) throw new Error(`${k} with ${s.num} 13 refused by hook`); };
      def.hooks = { beforeCreate: [refuse], beforeUpdate: [refuse] };
    }
    defs[k] = def;
  }
  for (const [a, p, b, inv, kind, required] of LINKS) {
    if (!defs[a] || !defs[b]) continue;
    const L = app.links[`${a}.${p}`];
    if (kind === 'm:n') {
      defs[a].properties[p] = { kind: 'm:n', entity: b, owner: true, pivotTable: L.pivot };
      defs[b].properties[inv] = { kind: 'm:n', entity: a, mappedBy: p };
    } else {
      const own = { kind: 'm:1', entity: b, nullable: !required };
      if (L.deleteRule) own.deleteRule = L.deleteRule;
      if (L.eager) own.eager = true;
      defs[a].properties[p] = own;
      const back = { kind: '1:m', entity: a, mappedBy: p };
      if (L.orphanRemoval) back.orphanRemoval = true;
      if (L.cascadeRemove) back.cascade = [Cascade.PERSIST, Cascade.REMOVE];
      defs[b].properties[inv] = back;
    }
  }
  for (const k of app.kinds) out[k] = new EntitySchema(defs[k]);
  return out;
}

function drawLinks(R, kinds, old) {
  const links = {};
  for (const [a, p, b, , kind, required] of LINKS) {
    if (!kinds.includes(a) || !kinds.includes(b)) continue;
    const key = `${a}.${p}`;
    if (old && old[key]) { links[key] = old[key]; continue; }
    if (kind === 'm:n') { links[key] = { pivot: R.chance(0.7) ? undefined : `${a.toLowerCase()}_${p}_link` }; continue; }
    const rules = required ? ['cascade', 'restrict', 'no action', undefined] : ['cascade', 'set null', 'restrict', undefined];
    links[key] = { deleteRule: R.pick(rules), eager: R.chance(0.05), orphanRemoval: R.chance(0.25), cascadeRemove: R.chance(0.3) };
  }
  return links;
}

// The relations of a kind, from the application's definitions.
function relationsOf(app, k) {
  const out = [];
  for (const [a, p, b, inv, kind, required] of LINKS) {
    if (!app.kinds.includes(a) || !app.kinds.includes(b)) continue;
    if (a === k) out.push({ prop: p, target: b, kind, required: !!required, owner: true });
    if (b === k) out.push({ prop: inv, target: a, kind: kind === 'm:n' ? 'm:n' : '1:m', required: false, owner: false, back: p });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Applications.
const RUN = cap.tempDir('mikroorm');
// MikroORM reads `<baseDir or cwd>/.env` unless MIKRO_ORM_ENV names another
// file: this one never exists, so no .env of the checkout is read.
process.env.MIKRO_ORM_ENV = path.join(RUN.dir, 'absent.env');
// Config and entity files written for an application fetch their objects
// here (they are JavaScript files MikroORM imports).
const REG = new Map();
globalThis[Symbol.for('pmrag.gen_mikroorm')] = REG;
const REG_EXPR = "globalThis[Symbol.for('pmrag.gen_mikroorm')]";

let appSeq = 0;
const DEBUG_LISTS = [['query', 'query-params', 'discovery', 'info', 'schema'], ['query', 'info', 'schema', 'discovery'],
  ['query', 'query-params'], ['query', 'schema', 'info'], ['discovery', 'info', 'query', 'deprecated']];
const copyObj = (o) => JSON.parse(JSON.stringify(o));

// The plan of an application: its kinds and definitions (a fresh database,
// or the previous application's one with the same or upgraded definitions)
// and its options.
function planApp(R, prev) {
  const idx = ++appSeq;
  const reuse = prev && prev.keep;
  const app = { idx, mode: reuse ? (R.chance(0.65) ? 'upgrade' : 'redeploy') : 'fresh', closedIn: null, orm: null, more: [] };
  app.dir = path.join(RUN.dir, `app${idx}`);
  fs.mkdirSync(app.dir);
  if (!reuse) {
    app.db = `mo_app${String(idx).padStart(3, '0')}`;
    app.kinds = pickKinds(R);
    app.knobs = {};
    for (const k of app.kinds) app.knobs[k] = drawKnobs(R, k);
    app.links = drawLinks(R, app.kinds);
    app.ids = {};
    app.uniq = {};
    app.n = 0;
  } else {
    app.db = prev.db;
    app.kinds = prev.kinds.slice();
    app.knobs = copyObj(prev.knobs);
    app.links = prev.links;
    app.ids = prev.dropped ? {} : copyObj(prev.ids);
    app.uniq = prev.dropped ? {} : copyObj(prev.uniq);
    app.n = prev.n;
    if (app.mode === 'upgrade') {
      const up = R.sample(app.kinds, R.int(1, 3));
      for (const k of up) app.knobs[k] = upgradeKnobs(R, app.knobs[k], k);
      if (R.chance(0.4)) {
        // a delete rule changed too
        app.links = Object.assign({}, app.links);
        for (const key of Object.keys(app.links)) {
          if (up.includes(key.split('.')[0]) && app.links[key].deleteRule !== undefined && R.chance(0.5)) {
            app.links[key] = Object.assign({}, app.links[key], { deleteRule: R.pick(['cascade', 'restrict', 'no action']) });
          }
        }
      }
      if (R.chance(0.35)) {
        const more = R.pick(Object.keys(KINDS).filter((k) => !app.kinds.includes(k)));
        if (more) {
          app.kinds = closeKinds(new Set(app.kinds.concat([more])));
          for (const k of app.kinds) if (!app.knobs[k]) app.knobs[k] = drawKnobs(R, k);
          app.links = drawLinks(R, app.kinds, app.links);
        }
      }
    }
  }
  for (const k of app.kinds) { app.ids[k] = app.ids[k] || []; app.uniq[k] = app.uniq[k] || []; }
  app.schemas = app.mode === 'redeploy' ? prev.schemas : buildSchemas(app);
  app.rels = {};
  for (const k of app.kinds) app.rels[k] = relationsOf(app, k);
  app.simpleLogger = R.chance(0.2);
  app.debug = R.chance(0.7) ? true : R.pick(DEBUG_LISTS);
  app.socket = R.chance(0.6);
  const d = R.rand();
  app.discovery = d < 0.5 ? 'refs' : d < 0.7 ? 'folder' : d < 0.82 ? 'sync' : 'config';
  if (app.mode === 'redeploy' && prev.discovery === 'folder' && R.chance(0.8)) {
    // the same build deployed again: the same entity files
    app.discovery = 'folder';
    app.entityDir = prev.entityDir;
  }
  app.ensureDatabase = R.chance(0.65);
  app.replicas = R.chance(0.12);
  app.secondOrm = !app.replicas && R.chance(0.1);
  app.closedPortFirst = R.chance(0.15);
  app.ignoreDeprecations = R.chance(0.75) ? false : R.pick([true, ['D0001']]);
  app.left = R.int(18, 45);
  return app;
}

function baseOptions(app, R, server) {
  const o = Object.assign({
    dbName: app.db, user: 'app', password: 'app-secret', debug: app.debug, colors: false,
    ignoreDeprecations: app.ignoreDeprecations, baseDir: app.dir,
    pool: { min: R.int(0, 2), max: R.int(2, 8) },
    ensureDatabase: app.ensureDatabase,
  }, loggerOptionsFor(app));
  if (app.socket) {
    o.host = 'localhost';
    o.driverOptions = { connection: { socketPath: server.sock } };
  } else {
    o.host = '127.0.0.1';
    o.port = server.port;
  }
  if (R.chance(0.3)) o.batchSize = R.pick([2, 3, 5]);
  if (R.chance(0.4)) o.loadStrategy = R.pick(['select-in', 'joined']);
  if (R.chance(0.15)) o.implicitTransactions = false;
  if (R.chance(0.2)) o.forceUtcTimezone = true;
  if (R.chance(0.1)) o.populateAfterFlush = false;
  if (R.chance(0.08)) o.useBatchInserts = false;
  if (R.chance(0.08)) o.useBatchUpdates = false;
  if (R.chance(0.15)) {
    // tag each statement with the application's name, as some do for the DBA
    const tag = ` /* ${R.pick(['billing', 'catalog', 'frontdesk'])} */`;
    o.onQuery = (sql) => sql + tag;
  }
  if (app.replicas) {
    o.replicas = [{ name: 'read-1', user: 'reader', password: 'reader-secret' }];
    if (R.chance(0.4)) o.replicas.push({ name: 'read-2', user: 'reader', password: 'reader-secret' });
  }
  if (app.discovery === 'folder') {
    o.entities = ['./entities'];
  } else {
    o.entities = app.kinds.map((k) => app.schemas[k]);
  }
  return o;
}

// Entity files of a folder-discovered application: one CommonJS file per
// kind exporting its schema by name (MikroORM requires them, the project not
// being ESM), an index that re-exports them, and files MikroORM skips, by
// name (`index.js`, a source map, a README) or by what they export (the
// `exports.default` of a compiled `export default {...}`).
function writeEntityDir(app, R) {
  app.entityDir = path.join(app.dir, 'entities');
  fs.mkdirSync(app.entityDir);
  for (const k of app.kinds) {
    REG.set(`app${app.idx}:${k}`, app.schemas[k]);
    const file = R.chance(0.5) ? `${k}.js` : `${k.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase())}.entity.js`;
    fs.writeFileSync(path.join(app.entityDir, file), `'use strict';\nexports.${k} = ${REG_EXPR}.get('app${app.idx}:${k}');\n`);
  }
  fs.writeFileSync(path.join(app.entityDir, 'index.js'), `'use strict';\nmodule.exports = {};\n`);
  if (R.chance(0.6)) fs.writeFileSync(path.join(app.entityDir, 'defaults.js'), `'use strict';\nexports.default = { pageSize: 20 };\n`);
  if (R.chance(0.4)) fs.writeFileSync(path.join(app.entityDir, 'README.md'), '# entities\n');
  if (R.chance(0.3)) fs.writeFileSync(path.join(app.entityDir, `${app.kinds[0]}.js.map`), '{}\n');
}

async function initOrm(app, R, server, opts) {
  if (app.discovery === 'folder') {
    if (!app.entityDir) writeEntityDir(app, R);
    opts.baseDir = path.dirname(app.entityDir); // a redeployed build's own dir
    opts.entities = ['./entities'];
    return MikroORM.init(opts);
  }
  if (app.discovery === 'sync') {
    const orm = MikroORM.initSync(opts);
    if (R.chance(0.7)) await orm.connect();
    return orm;
  }
  if (app.discovery === 'config') {
    // the options come from a config file named on the command line
    const file = path.join(app.dir, 'mikro-orm.config.js');
    REG.set(`app${app.idx}:config`, Object.assign({ driver: MySqlDriver }, opts));
    fs.writeFileSync(file, `'use strict';\nmodule.exports = ${REG_EXPR}.get('app${app.idx}:config');\n`);
    const argv = process.argv.slice();
    if (R.chance(0.5)) process.argv.push(`--config=${file}`);
    else process.argv.push('--config', file);
    try { return await MikroORM.init(); } finally { process.argv = argv; }
  }
  if (R.chance(0.15)) {
    const orm = await MikroORM.init(Object.assign({}, opts, { connect: false }));
    await orm.connect();
    return orm;
  }
  return MikroORM.init(opts);
}

// ---------------------------------------------------------------------------
// Steps of the work cases.  ctx: {app, R, em (the case's fork), made}.
const S = (ctx, k) => ctx.app.schemas[k];
const spec = (k) => KINDS[k];
const kindOf = (ctx) => ctx.R.pick(ctx.app.kinds);
const someId = (ctx, k) => (ctx.app.ids[k].length ? ctx.R.pick(ctx.app.ids[k]) : ctx.R.int(1, 6));
const relsOf = (ctx, k, kinds) => ctx.app.rels[k].filter((r) => !kinds || kinds.includes(r.kind));

// per-query logging options: some queries are labelled, some turned off
function qo(ctx, extra) {
  const o = Object.assign({}, extra);
  const r = ctx.R.rand();
  if (r < 0.05) o.logging = { enabled: false };
  else if (r < 0.1) o.logging = { label: ctx.R.pick(['audit', 'report', 'sync-job']) };
  else if (r < 0.13) o.logging = { debugMode: ['query'] };
  return o;
}

function newEntity(ctx, em, k, depth, preset) {
  const { R, app } = ctx;
  const data = spec(k).row(R, ++app.n, app.knobs[k].has);
  Object.assign(data, preset);
  for (const rel of app.rels[k]) {
    if (rel.kind !== 'm:1' || data[rel.prop] !== undefined) continue;
    const known = app.ids[rel.target];
    if (known.length && R.chance(rel.target === k ? 0.5 : 0.75)) data[rel.prop] = em.getReference(S(ctx, rel.target), R.pick(known));
    else if (rel.target !== k && (rel.required || (depth < 2 && R.chance(0.3)))) data[rel.prop] = newEntity(ctx, em, rel.target, depth + 1);
  }
  const e = em.create(S(ctx, k), data);
  for (const rel of app.rels[k]) {
    if (rel.kind === 'm:n' && rel.owner && R.chance(0.6)) {
      for (let i = R.int(1, 3); i > 0; i--) {
        const known = app.ids[rel.target];
        e[rel.prop].add(known.length && R.chance(0.6) ? em.getReference(S(ctx, rel.target), R.pick(known))
          : newEntity(ctx, em, rel.target, depth + 1));
      }
    }
    if (rel.kind === '1:m' && rel.target !== k && depth === 0 && R.chance(0.35)) {
      for (let i = R.int(1, 3); i > 0; i--) newEntity(ctx, em, rel.target, depth + 1, { [rel.back]: e });
    }
  }
  ctx.made.push([k, e]);
  return e;
}

async function flush(ctx, em) {
  await (em || ctx.em).flush();
  remember(ctx);
}

function remember(ctx) {
  for (const [k, e] of ctx.made) {
    if (e.id === undefined || e.id === null) continue;
    if (!ctx.app.ids[k].includes(e.id)) ctx.app.ids[k].push(e.id);
    const u = spec(k).uniq;
    if (u && e[u] && !ctx.app.uniq[k].includes(e[u])) ctx.app.uniq[k].push(e[u]);
  }
  ctx.made = [];
}

function forget(ctx, k, ids) {
  const drop = new Set([].concat(ids));
  ctx.app.ids[k] = ctx.app.ids[k].filter((x) => !drop.has(x));
}

function whereFor(ctx, k) {
  const { R } = ctx;
  const s = spec(k);
  const m1 = relsOf(ctx, k, ['m:1']);
  switch (R.int(0, 9)) {
    case 0: return { [s.num]: { $gt: R.int(0, 100) } };
    case 1: return { [s.flag]: R.chance(0.5) };
    case 2: return { id: { $in: R.sample(ctx.app.ids[k].length ? ctx.app.ids[k] : [1, 2, 3], R.int(1, 4)) } };
    case 3: return { [s.str]: { $like: `${word(R)}%` } };
    case 4: return { $or: [{ [s.num]: { $lt: R.int(0, 50) } }, { [s.flag]: true }] };
    case 5: return { [s.num]: { $gte: R.int(0, 20), $lte: R.int(21, 400) } };
    case 6: return { id: someId(ctx, k) };
    case 7: {
      if (!m1.length) return { [s.flag]: true };
      const rel = R.pick(m1);
      return R.chance(0.5) ? { [rel.prop]: someId(ctx, rel.target) } : { [rel.prop]: { [spec(rel.target).flag]: true } };
    }
    case 8: return { [s.str]: { $ne: null }, [s.num]: { $nin: [1, 2, 3] } };
    default: return {};
  }
}

function orderFor(ctx, k) {
  const s = spec(k);
  return ctx.R.pick([{ id: QueryOrder.DESC }, { [s.num]: 'asc', id: 'asc' }, { [s.str]: QueryOrder.ASC }, undefined]);
}

function populateFor(ctx, k) {
  const { R } = ctx;
  const rels = ctx.app.rels[k];
  if (!rels.length) return undefined;
  const paths = [];
  for (const rel of R.sample(rels, R.int(1, Math.min(2, rels.length)))) {
    paths.push(rel.prop);
    const next = ctx.app.rels[rel.target].filter((r) => r.target !== k);
    if (next.length && R.chance(0.3)) paths.push(`${rel.prop}.${R.pick(next).prop}`);
  }
  return paths;
}

// a row for native inserts, which skip `onCreate`: the application sets the
// timestamps itself
function nativeRow(ctx, k) {
  const row = spec(k).row(ctx.R, ++ctx.app.n, ctx.app.knobs[k].has);
  for (const p of ['createdAt', 'updatedAt']) if (ctx.app.knobs[k].has[p]) row[p] = new Date();
  return row;
}

async function loadSome(ctx, k, n, extra) {
  const ids = ctx.app.ids[k];
  if (!ids.length) {
    // nothing known yet: the case makes some first
    for (let i = ctx.R.int(1, 3); i > 0; i--) newEntity(ctx, ctx.em, k, 0);
    await flush(ctx);
  }
  return ctx.em.find(S(ctx, k), { id: { $in: ctx.R.sample(ctx.app.ids[k], n) } }, qo(ctx, extra));
}

const STEPS = {
  // -- persisting
  async create(ctx) {
    for (let i = ctx.R.int(1, 3); i > 0; i--) newEntity(ctx, ctx.em, kindOf(ctx), 0);
    await flush(ctx);
  },
  async createMany(ctx) {
    const k = kindOf(ctx);
    for (let i = ctx.R.int(3, 10); i > 0; i--) newEntity(ctx, ctx.em, k, 1);
    await flush(ctx);
  },
  async persistLater(ctx) {
    // built, changed before the flush, then flushed: one insert with the final values
    const k = kindOf(ctx);
    const e = newEntity(ctx, ctx.em, k, 0);
    ctx.em.persist(e);
    e[spec(k).num] = ctx.R.int(0, 99);
    await flush(ctx);
    if (ctx.R.chance(0.5)) { e[spec(k).flag] = !e[spec(k).flag]; await flush(ctx); }
  },
  async insertMany(ctx) {
    const k = ctx.R.pick(ctx.app.kinds.filter((x) => !REQUIRES[x]));
    const rows = [];
    for (let i = ctx.R.int(2, 6); i > 0; i--) rows.push(nativeRow(ctx, k));
    const ids = await ctx.em.insertMany(S(ctx, k), rows, qo(ctx));
    for (const id of [].concat(ids || [])) if (typeof id === 'number') ctx.app.ids[k].push(id);
  },
  async nativeInsert(ctx) {
    const k = ctx.R.pick(ctx.app.kinds.filter((x) => !REQUIRES[x]));
    const id = await ctx.em.insert(S(ctx, k), nativeRow(ctx, k), qo(ctx));
    if (typeof id === 'number') ctx.app.ids[k].push(id);
  },
  async upsert(ctx) {
    const ks = ctx.app.kinds.filter((x) => spec(x).uniq && !REQUIRES[x]);
    if (!ks.length) return STEPS.create(ctx);
    const k = ctx.R.pick(ks);
    const s = spec(k);
    const row = nativeRow(ctx, k);
    if (ctx.app.uniq[k].length && ctx.R.chance(0.6)) row[s.uniq] = ctx.R.pick(ctx.app.uniq[k]);
    if (ctx.R.chance(0.5)) {
      const e = await ctx.em.upsert(S(ctx, k), row, qo(ctx, { onConflictFields: [s.uniq] }));
      ctx.made.push([k, e]);
    } else {
      const more = [row, nativeRow(ctx, k)];
      const es = await ctx.em.upsertMany(S(ctx, k), more, qo(ctx, { onConflictFields: [s.uniq],
        onConflictAction: ctx.R.pick(['merge', 'ignore']) }));
      for (const e of es) ctx.made.push([k, e]);
    }
    remember(ctx);
  },

  // -- reading
  async find(ctx) {
    const k = kindOf(ctx);
    const o = qo(ctx, { orderBy: orderFor(ctx, k) });
    if (ctx.R.chance(0.5)) o.limit = ctx.R.int(1, 10);
    if (o.limit && ctx.R.chance(0.3)) o.offset = ctx.R.int(0, 5);
    if (ctx.R.chance(0.15)) o.fields = ['id', spec(k).str, spec(k).num];
    await ctx.em.find(S(ctx, k), whereFor(ctx, k), o);
  },
  async findOne(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const r = ctx.R.int(0, 3);
    if (r === 0) await ctx.em.findOne(S(ctx, k), someId(ctx, k), qo(ctx));
    else if (r === 1 && s.uniq && ctx.app.uniq[k].length) await ctx.em.findOne(S(ctx, k), { [s.uniq]: ctx.R.pick(ctx.app.uniq[k]) }, qo(ctx));
    else if (r === 2) await ctx.em.findOneOrFail(S(ctx, k), ctx.R.chance(0.5) ? someId(ctx, k) : 900000 + ctx.R.int(0, 999), qo(ctx));
    else await ctx.em.findOne(S(ctx, k), whereFor(ctx, k), qo(ctx, { orderBy: { id: 'asc' } }));
  },
  async findPopulate(ctx) {
    const k = kindOf(ctx);
    const o = qo(ctx, { populate: populateFor(ctx, k), orderBy: orderFor(ctx, k) });
    if (ctx.R.chance(0.5)) o.strategy = ctx.R.pick(['joined', 'select-in']);
    if (ctx.R.chance(0.4)) o.limit = ctx.R.int(2, 8);
    const res = await ctx.em.find(S(ctx, k), whereFor(ctx, k), o);
    // then one of them with every relation of its kind (`populate: ['*']`
    // would follow the relations of the related kinds too, which takes
    // MikroORM minutes on the larger models)
    if (ctx.R.chance(0.3) && res.length && ctx.app.rels[k].length) {
      await ctx.em.findOne(S(ctx, k), res[0].id, qo(ctx, { populate: ctx.app.rels[k].map((r) => r.prop) }));
    }
  },
  async findAndCount(ctx) {
    const k = kindOf(ctx);
    await ctx.em.findAndCount(S(ctx, k), whereFor(ctx, k), qo(ctx, { limit: ctx.R.int(2, 6), offset: ctx.R.int(0, 4), orderBy: { id: 'asc' } }));
  },
  async count(ctx) {
    const k = kindOf(ctx);
    await ctx.em.count(S(ctx, k), whereFor(ctx, k), qo(ctx));
    if (ctx.R.chance(0.4)) await ctx.em.count(S(ctx, k), {}, qo(ctx));
  },
  async cursor(ctx) {
    const k = kindOf(ctx);
    const first = ctx.R.int(2, 4);
    const orderBy = ctx.R.chance(0.5) ? { id: 'asc' } : { [spec(k).num]: 'desc', id: 'desc' };
    let cur = await ctx.em.findByCursor(S(ctx, k), {}, qo(ctx, { first, orderBy }));
    for (let i = ctx.R.int(0, 2); i > 0 && cur.hasNextPage; i--) {
      cur = await ctx.em.findByCursor(S(ctx, k), {}, qo(ctx, { first, after: cur, orderBy, includeCount: ctx.R.chance(0.5) }));
    }
  },
  async refresh(ctx) {
    const k = kindOf(ctx);
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    e[spec(k).num] = 4242;
    await ctx.em.refresh(e, qo(ctx));
  },
  async reference(ctx) {
    const k = kindOf(ctx);
    const ref = ctx.em.getReference(S(ctx, k), someId(ctx, k));
    await wrap(ref).init(qo(ctx));
    const m1 = relsOf(ctx, k, ['m:1']).filter((r) => ref[r.prop]);
    if (m1.length) await wrap(ref[ctx.R.pick(m1).prop]).init();
  },
  async filters(ctx) {
    const ks = ctx.app.kinds.filter((k) => ctx.app.knobs[k].filter);
    if (!ks.length) return STEPS.find(ctx);
    const k = ctx.R.pick(ks);
    const f = ctx.R.chance(0.5) ? { [spec(k).flag]: true } : { atLeast: { min: ctx.R.int(0, 300) } };
    await ctx.em.find(S(ctx, k), {}, qo(ctx, { filters: f, limit: 10 }));
    if (ctx.R.chance(0.4)) await ctx.em.count(S(ctx, k), {}, qo(ctx, { filters: f }));
  },
  async populateLater(ctx) {
    const k = kindOf(ctx);
    const es = await loadSome(ctx, k, ctx.R.int(1, 4));
    const p = populateFor(ctx, k);
    if (es.length && p) await ctx.em.populate(es, p, qo(ctx));
  },
  async collection(ctx) {
    const ks = ctx.app.kinds.filter((k) => relsOf(ctx, k, ['1:m', 'm:n']).length);
    if (!ks.length) return STEPS.find(ctx);
    const k = ctx.R.pick(ks);
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    const rel = ctx.R.pick(relsOf(ctx, k, ['1:m', 'm:n']));
    const c = e[rel.prop];
    const r = ctx.R.int(0, 3);
    if (r === 0) await c.init(qo(ctx));
    else if (r === 1) await c.loadCount();
    else if (r === 2) await c.matching({ where: { [spec(rel.target).flag]: true }, limit: 3, orderBy: { id: 'desc' } });
    else await c.loadItems({ where: { [spec(rel.target).num]: { $gte: ctx.R.int(0, 50) } } });
  },
  async cached(ctx) {
    // the second find is answered from the result cache: no query
    const k = kindOf(ctx);
    const where = whereFor(ctx, k);
    for (let i = 0; i < 2; i++) await ctx.em.find(S(ctx, k), where, { cache: 2000, orderBy: { id: 'asc' } });
  },

  // -- QueryBuilder
  async qbSelect(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const qb = ctx.em.createQueryBuilder(S(ctx, k), 'e').select(ctx.R.chance(0.6) ? '*' : ['id', s.str, s.num])
      .where(whereFor(ctx, k)).orderBy(ctx.R.chance(0.5) ? { id: 'desc' } : { [s.num]: 'asc' }).limit(ctx.R.int(1, 12));
    if (ctx.R.chance(0.3)) qb.offset(ctx.R.int(0, 5));
    const r = ctx.R.int(0, 3);
    if (r === 0) await qb.getResultList();
    else if (r === 1) await qb.execute('all');
    else if (r === 2) await qb.getSingleResult();
    else await qb.getResultAndCount();
  },
  async qbJoin(ctx) {
    const ks = ctx.app.kinds.filter((k) => ctx.app.rels[k].length);
    const k = ctx.R.pick(ks);
    const rel = ctx.R.pick(ctx.app.rels[k]);
    const t = spec(rel.target);
    const qb = ctx.em.createQueryBuilder(S(ctx, k), 'e');
    const cond = ctx.R.chance(0.5) ? { [`j.${t.flag}`]: true } : {};
    const r = ctx.R.int(0, 3);
    if (r === 0) qb.select('*').leftJoinAndSelect(`e.${rel.prop}`, 'j');
    else if (r === 1) qb.select('*').innerJoinAndSelect(`e.${rel.prop}`, 'j', cond);
    else if (r === 2) qb.select('e.*').leftJoin(`e.${rel.prop}`, 'j', cond);
    else qb.select('e.*').innerJoin(`e.${rel.prop}`, 'j', cond);
    if (ctx.R.chance(0.5)) qb.where({ [`j.${t.num}`]: { $gte: ctx.R.int(0, 100) } });
    qb.orderBy({ 'e.id': 'asc' }).limit(ctx.R.int(3, 15));
    await qb.getResultList();
  },
  async qbAggregate(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const qb = ctx.em.createQueryBuilder(S(ctx, k), 'e')
      .select([s.flag, core.raw('count(*) as cnt'), core.raw(`max(e.${ctx.R.chance(0.5) ? 'id' : s.num}) as top`)])
      .groupBy(s.flag);
    if (ctx.R.chance(0.4)) qb.having('count(*) > ?', [ctx.R.int(0, 3)]);
    await qb.execute('all');
    if (ctx.R.chance(0.5)) await ctx.em.createQueryBuilder(S(ctx, k)).where(whereFor(ctx, k)).getCount();
  },
  async qbUpdate(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const set = ctx.R.chance(0.5) ? { [s.num]: ctx.R.int(0, 300) } : { [s.flag]: ctx.R.chance(0.5) };
    await ctx.em.createQueryBuilder(S(ctx, k)).update(set).where(whereFor(ctx, k)).execute();
  },
  async qbDelete(ctx) {
    const k = kindOf(ctx);
    const ids = ctx.R.sample(ctx.app.ids[k], ctx.R.int(1, 2));
    if (!ids.length) return STEPS.qbSelect(ctx);
    await ctx.em.createQueryBuilder(S(ctx, k)).delete({ id: { $in: ids } }).execute();
    forget(ctx, k, ids);
  },
  async qbInsert(ctx) {
    const k = ctx.R.pick(ctx.app.kinds.filter((x) => !REQUIRES[x]));
    const res = await ctx.em.createQueryBuilder(S(ctx, k)).insert(nativeRow(ctx, k)).execute('run');
    if (res && typeof res.insertId === 'number') ctx.app.ids[k].push(res.insertId);
  },
  async qbSub(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const sub = ctx.em.createQueryBuilder(S(ctx, k), 'x').select('x.id').where({ [s.num]: { $gt: ctx.R.int(0, 200) } }).getKnexQuery();
    await ctx.em.createQueryBuilder(S(ctx, k), 'e').where({ id: { $in: sub } }).limit(5).getResultList();
  },
  async qbRawWhere(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const qb = ctx.em.createQueryBuilder(S(ctx, k), 'e').select(['id', s.str]);
    qb.where(`lower(e.${s.str}) like ?`, [`%${word(ctx.R).slice(0, 2)}%`]);
    if (ctx.R.chance(0.5)) qb.andWhere({ [s.flag]: true });
    await qb.limit(8).getResultList();
  },

  // -- updating
  async modify(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    const es = await loadSome(ctx, k, ctx.R.int(1, 3));
    for (const e of es) {
      const r = ctx.R.int(0, 2);
      if (r === 0) e[s.num] = (e[s.num] || 0) + ctx.R.int(1, 9);
      else if (r === 1) e[s.flag] = !e[s.flag];
      else e[s.str] = `${e[s.str]}`.slice(0, 12) + `~${++ctx.app.n}`;
    }
    await flush(ctx);
  },
  async nativeUpdate(ctx) {
    const k = kindOf(ctx);
    const s = spec(k);
    await ctx.em.nativeUpdate(S(ctx, k), whereFor(ctx, k), { [s.num]: ctx.R.int(0, 500) }, qo(ctx));
  },
  async changeCollection(ctx) {
    const ks = ctx.app.kinds.filter((k) => relsOf(ctx, k, ['m:n']).some((r) => r.owner));
    if (!ks.length) return STEPS.modify(ctx);
    const k = ctx.R.pick(ks);
    const rel = ctx.R.pick(relsOf(ctx, k, ['m:n']).filter((r) => r.owner));
    const [e] = await loadSome(ctx, k, 1, { populate: [rel.prop] });
    if (!e) return;
    const c = e[rel.prop];
    if (c.length && ctx.R.chance(0.5)) c.remove(ctx.R.pick(c.getItems()));
    else if (ctx.R.chance(0.2)) c.removeAll();
    else c.add(ctx.app.ids[rel.target].length && ctx.R.chance(0.6)
      ? ctx.em.getReference(S(ctx, rel.target), ctx.R.pick(ctx.app.ids[rel.target])) : newEntity(ctx, ctx.em, rel.target, 1));
    await flush(ctx);
  },
  async moveRelation(ctx) {
    const ks = ctx.app.kinds.filter((k) => relsOf(ctx, k, ['m:1']).length);
    if (!ks.length) return STEPS.modify(ctx);
    const k = ctx.R.pick(ks);
    const rel = ctx.R.pick(relsOf(ctx, k, ['m:1']));
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    // a tree node only moves under an older node: the tree stays acyclic
    // (a cycle would make `populate: ['*']` load its children forever)
    const known = ctx.app.ids[rel.target].filter((id) => rel.target !== k || id < e.id);
    e[rel.prop] = (!rel.required && ctx.R.chance(0.3)) || (rel.target === k && !known.length) ? null
      : known.length ? ctx.em.getReference(S(ctx, rel.target), ctx.R.pick(known))
        : newEntity(ctx, ctx.em, rel.target, 1);
    await flush(ctx);
  },
  async assign(ctx) {
    const k = kindOf(ctx);
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    const row = spec(k).row(ctx.R, ++ctx.app.n, ctx.app.knobs[k].has);
    if (spec(k).uniq) delete row[spec(k).uniq];
    ctx.em.assign(e, row);
    await flush(ctx);
  },

  // -- deleting
  async remove(ctx) {
    const k = kindOf(ctx);
    const es = await loadSome(ctx, k, ctx.R.int(1, 2), ctx.R.chance(0.4) ? { populate: populateFor(ctx, k) } : {});
    for (const e of es) ctx.em.remove(e);
    await flush(ctx);
    forget(ctx, k, es.map((e) => e.id));
  },
  async nativeDelete(ctx) {
    const k = kindOf(ctx);
    const ids = ctx.R.sample(ctx.app.ids[k], ctx.R.int(1, 3));
    await ctx.em.nativeDelete(S(ctx, k), ids.length ? { id: { $in: ids } } : whereFor(ctx, k), qo(ctx));
    forget(ctx, k, ids);
  },
  async removeReference(ctx) {
    const k = kindOf(ctx);
    const id = someId(ctx, k);
    ctx.em.remove(ctx.em.getReference(S(ctx, k), id));
    await flush(ctx);
    forget(ctx, k, id);
  },
  async orphan(ctx) {
    const ks = ctx.app.kinds.filter((k) => relsOf(ctx, k, ['1:m']).length);
    if (!ks.length) return STEPS.remove(ctx);
    const k = ctx.R.pick(ks);
    const rel = ctx.R.pick(relsOf(ctx, k, ['1:m']));
    const [e] = await loadSome(ctx, k, 1, { populate: [rel.prop] });
    if (!e || !e[rel.prop].length) return;
    const child = ctx.R.pick(e[rel.prop].getItems());
    // without orphan removal this sets the child's reference to null (or fails when it is required)
    e[rel.prop].remove(child);
    await flush(ctx);
  },

  // -- transactions
  async transactional(ctx) {
    await ctx.em.transactional(async (t) => {
      const k = kindOf(ctx);
      newEntity(ctx, t, k, 0);
      await t.flush();
      const es = await t.find(S(ctx, k), whereFor(ctx, k), { limit: 5 });
      for (const e of es.slice(0, 2)) e[spec(k).num] = ctx.R.int(0, 99);
    }, ctx.R.chance(0.3) ? { isolationLevel: ctx.R.pick(ISOLATION) } : {});
    remember(ctx);
  },
  async nested(ctx) {
    const inner = ctx.R.int(0, 2); // 0: inner commits, 1: inner throws and outer goes on, 2: inner throws through
    await ctx.em.transactional(async (t1) => {
      newEntity(ctx, t1, kindOf(ctx), 0);
      await t1.flush();
      try {
        await t1.transactional(async (t2) => {
          newEntity(ctx, t2, kindOf(ctx), 1);
          await t2.flush();
          if (inner && ctx.R.chance(0.5)) {
            await t2.transactional(async (t3) => { await t3.count(S(ctx, kindOf(ctx)), {}); });
          }
          if (inner) throw new Error('inner step failed');
        });
      } catch (e) {
        if (inner === 2) throw e;
      }
      await t1.find(S(ctx, kindOf(ctx)), {}, { limit: 3 });
    });
    remember(ctx);
  },
  async explicit(ctx) {
    const em = ctx.em;
    await em.begin(ctx.R.chance(0.25) ? { isolationLevel: ctx.R.pick(ISOLATION) } : {});
    try {
      const k = kindOf(ctx);
      newEntity(ctx, em, k, 0);
      await em.flush();
      await em.find(S(ctx, k), whereFor(ctx, k), { limit: 4 });
      if (ctx.R.chance(0.35)) { await em.rollback(); ctx.made = []; return; }
      await em.commit();
      remember(ctx);
    } catch (e) {
      await em.rollback().catch(() => {});
      throw e;
    }
  },
  async readOnly(ctx) {
    await ctx.em.transactional(async (t) => {
      const k = kindOf(ctx);
      await t.find(S(ctx, k), whereFor(ctx, k), { limit: 5 });
      await t.count(S(ctx, kindOf(ctx)), {});
      if (ctx.R.chance(0.3)) await t.nativeUpdate(S(ctx, k), { id: someId(ctx, k) }, { [spec(k).num]: 7 }); // refused
    }, { readOnly: true });
  },
  async throws(ctx) {
    await ctx.em.transactional(async (t) => {
      newEntity(ctx, t, kindOf(ctx), 0);
      await t.flush();
      throw new Error('business rule violated');
    });
  },
  async lockRows(ctx) {
    const k = kindOf(ctx);
    await ctx.em.transactional(async (t) => {
      const mode = ctx.R.pick([LockMode.PESSIMISTIC_WRITE, LockMode.PESSIMISTIC_READ, LockMode.PESSIMISTIC_PARTIAL_WRITE]);
      const es = await t.find(S(ctx, k), whereFor(ctx, k), { lockMode: mode, limit: 3 });
      for (const e of es) e[spec(k).num] = (e[spec(k).num] || 0) + 1;
      if (es[0] && ctx.R.chance(0.4)) await t.lock(es[0], LockMode.PESSIMISTIC_WRITE);
    });
  },

  // -- conflicts
  async optimistic(ctx) {
    const ks = ctx.app.kinds.filter((k) => ctx.app.knobs[k].version);
    if (!ks.length) return STEPS.lockRows(ctx);
    const k = ctx.R.pick(ks);
    const s = spec(k);
    const [a] = await loadSome(ctx, k, 1);
    if (!a) return;
    const other = ctx.app.orm.em.fork();
    const b = await other.findOne(S(ctx, k), a.id);
    b[s.num] = (b[s.num] || 0) + 100;
    await other.flush();
    a[s.num] = (a[s.num] || 0) + 1; // stale version: the update matches no row
    await ctx.em.flush();
  },
  async lockVersion(ctx) {
    const k = kindOf(ctx);
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    const v = ctx.app.knobs[k].version ? e.version + ctx.R.pick([0, -1, 1]) : 1;
    if (ctx.R.chance(0.5)) await ctx.em.lock(e, LockMode.OPTIMISTIC, v);
    else await ctx.em.fork().findOne(S(ctx, k), e.id, { lockMode: LockMode.OPTIMISTIC, lockVersion: v });
  },
  async nowait(ctx) {
    const k = kindOf(ctx);
    const [e] = await loadSome(ctx, k, 1);
    if (!e) return;
    const holder = ctx.app.orm.em.fork();
    await holder.begin();
    try {
      await holder.findOne(S(ctx, k), e.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const mode = ctx.R.pick([LockMode.PESSIMISTIC_WRITE_OR_FAIL, LockMode.PESSIMISTIC_PARTIAL_WRITE, LockMode.PESSIMISTIC_WRITE_OR_FAIL]);
      await ctx.em.fork().transactional((t) => t.find(S(ctx, k), { id: e.id }, { lockMode: mode }));
    } finally {
      // the commit flushes first; when that fails the transaction is still
      // open and would keep its pooled connection
      await holder.commit().catch(async (e2) => { await holder.rollback().catch(() => {}); throw e2; });
    }
  },

  // -- errors the application meets and catches
  async duplicate(ctx) {
    const ks = ctx.app.kinds.filter((k) => spec(k).uniq && ctx.app.uniq[k].length);
    if (!ks.length) return STEPS.create(ctx);
    const k = ctx.R.pick(ks);
    const s = spec(k);
    newEntity(ctx, ctx.em, k, 0, { [s.uniq]: ctx.R.pick(ctx.app.uniq[k]) });
    await flush(ctx);
  },
  async notNull(ctx) {
    const k = ctx.R.pick(ctx.app.kinds.filter((x) => !REQUIRES[x]));
    const row = nativeRow(ctx, k);
    delete row[spec(k).str];
    if (ctx.R.chance(0.5)) await ctx.em.insert(S(ctx, k), row);
    else await ctx.em.nativeUpdate(S(ctx, k), { id: someId(ctx, k) }, { [spec(k).str]: null });
  },
  async foreignKey(ctx) {
    const ks = ctx.app.kinds.filter((k) => relsOf(ctx, k, ['m:1']).length);
    const k = ctx.R.pick(ks);
    const rel = ctx.R.pick(relsOf(ctx, k, ['m:1']));
    if (ctx.R.chance(0.5)) {
      const row = nativeRow(ctx, k);
      for (const r of relsOf(ctx, k, ['m:1'])) if (r.required) row[r.prop] = someId(ctx, r.target);
      row[rel.prop] = 700000 + ctx.R.int(0, 999);
      await ctx.em.insert(S(ctx, k), row);
    } else {
      // the parent of some rows: refused by a restrict rule, cascades otherwise
      const id = someId(ctx, rel.target);
      await ctx.em.nativeDelete(S(ctx, rel.target), { id });
      forget(ctx, rel.target, id);
    }
  },
  async tooLong(ctx) {
    const k = kindOf(ctx);
    newEntity(ctx, ctx.em, k, 0, { [spec(k).str]: `${word(ctx.R)}-`.repeat(60) });
    await flush(ctx);
  },
  async badSql(ctx) {
    const k = kindOf(ctx);
    const sql = ctx.R.pick([`selec * from \`${k.toLowerCase()}\``, 'select * from `no_such_table` limit 1',
      `select no_such_column from \`${S(ctx, k).meta.tableName || k.toLowerCase()}\``, 'select 1 from dual where',
      `insert into \`${k.toLowerCase()}\` (id) values ('x')`]);
    await ctx.em.execute(sql);
  },
  async hook(ctx) {
    const ks = ctx.app.kinds.filter((k) => ctx.app.knobs[k].hook);
    const k = ks.length ? ctx.R.pick(ks) : kindOf(ctx);
    newEntity(ctx, ctx.em, k, 0, { [spec(k).num]: 13 });
    await flush(ctx);
  },

  // -- raw SQL
  async execute(ctx) {
    const k = kindOf(ctx);
    const table = ctx.em.getMetadata().get(k).tableName;
    const r = ctx.R.int(0, 4);
    if (r === 0) await ctx.em.execute(`select count(*) as n from \`${table}\``);
    else if (r === 1) await ctx.em.execute(`select * from \`${table}\` where id = ?`, [someId(ctx, k)]);
    else if (r === 2) await ctx.em.execute(`update \`${table}\` set \`${spec(k).num}\` = \`${spec(k).num}\` + 1 where id in (?, ?)`, [someId(ctx, k), someId(ctx, k)], 'run');
    else if (r === 3) await ctx.em.getConnection().execute('select version() as v, now() as t, database() as db', [], 'get');
    else await ctx.em.execute(ctx.em.getKnex().select('id').from(table).orderBy('id', 'desc').limit(3));
  },

  // -- schema and connections
  async updateSchema(ctx) {
    const r = ctx.R.int(0, 3);
    if (r === 0) await ctx.app.orm.schema.updateSchema({ safe: ctx.R.chance(0.3) });
    else if (r === 1) await ctx.app.orm.schema.getUpdateSchemaSQL();
    else if (r === 2) await ctx.app.orm.schema.ensureDatabase({ forceCheck: true });
    else await ctx.app.orm.schema.getCreateSchemaSQL();
  },
  async clear(ctx) {
    if (ctx.R.chance(0.7)) await ctx.app.orm.schema.clearDatabase();
    else await ctx.app.orm.schema.refreshDatabase();
    for (const k of ctx.app.kinds) { ctx.app.ids[k] = []; ctx.app.uniq[k] = []; }
  },
  async killed(ctx) {
    // the server drops the pooled connections; the next queries meet it
    await ctx.server.kill(ctx.app.db);
    await sleep(20);
    const k = kindOf(ctx);
    for (let i = 0; i < 2; i++) await ctx.em.find(S(ctx, k), {}, { limit: 2 }).catch((e) => noteError(ctx.ck, 'killed', e));
  },
};

// SNAPSHOT is an isolation level MikroORM knows and MariaDB does not
const ISOLATION = Object.values(IsolationLevel).filter((x) => x !== IsolationLevel.SNAPSHOT);

// A work case's theme: the steps it draws from (and its weight).
const THEMES = [
  [0.15, ['create', 'create', 'createMany', 'persistLater', 'insertMany', 'nativeInsert', 'upsert']],
  [0.17, ['find', 'findOne', 'findPopulate', 'findPopulate', 'findAndCount', 'count', 'cursor', 'refresh', 'reference', 'filters',
    'populateLater', 'collection', 'cached']],
  [0.12, ['qbSelect', 'qbJoin', 'qbAggregate', 'qbUpdate', 'qbDelete', 'qbInsert', 'qbSub', 'qbRawWhere']],
  [0.11, ['modify', 'modify', 'nativeUpdate', 'changeCollection', 'moveRelation', 'assign', 'upsert']],
  [0.07, ['remove', 'nativeDelete', 'removeReference', 'orphan', 'qbDelete']],
  [0.13, ['transactional', 'transactional', 'nested', 'explicit', 'readOnly', 'throws', 'lockRows']],
  [0.08, ['optimistic', 'optimistic', 'lockVersion', 'nowait', 'lockRows']],
  [0.1, ['duplicate', 'duplicate', 'notNull', 'foreignKey', 'tooLong', 'badSql', 'hook']],
  [0.05, ['execute', 'execute', 'qbRawWhere', 'find']],
  [0.02, ['updateSchema', 'updateSchema', 'clear', 'find', 'create']],
];
const ALL_STEPS = Object.keys(STEPS).filter((s) => s !== 'killed' && s !== 'clear');

// ---------------------------------------------------------------------------
// Cases.
const stepErrors = new Map();
const EXPECTED = /Exception$|^OptimisticLockError$|^NotFoundError$|^ValidationError$/;
function noteError(ck, what, e) {
  const ek = `${what} ${(e && e.name) || 'Error'}: ${String(e && e.message).slice(0, 70)}`;
  stepErrors.set(ek, (stepErrors.get(ek) || 0) + 1);
  if (VERBOSE && !(e && EXPECTED.test(e.name)) && !/business rule|inner step|refused by hook/.test(String(e && e.message))) {
    process.stderr.write(`${ck} ${what}: ${(e && e.stack) || e}\n`);
  }
}

async function startCase(ctx, R, prev) {
  const { server } = ctx;
  const app = planApp(R, prev);
  ctx.app = app;
  if (app.mode === 'fresh' && !(app.ensureDatabase && R.chance(0.4))) await server.admin.query(`CREATE DATABASE IF NOT EXISTS \`${app.db}\``);
  if (app.closedPortFirst) {
    // the application starts with a wrong port, fails, then fixes its configuration
    const bad = baseOptions(app, R, server);
    Object.assign(bad, { host: '127.0.0.1', port: await freePort(), driverOptions: {}, ensureDatabase: false,
      entities: app.kinds.map((k) => app.schemas[k]) });
    const orm = await MikroORM.init(bad).catch((e) => noteError(ctx.ck, 'closed port', e));
    if (orm) await orm.close(true).catch(() => {});
  }
  const opts = baseOptions(app, R, server);
  app.orm = await initOrm(app, R, server, opts);
  ctx.trace.push(`${app.mode}/${app.discovery}/${app.kinds.join(',')}`);
  if (app.secondOrm) {
    // another module of the application shares the first ORM's knex client
    const o2 = baseOptions(app, R, server);
    o2.entities = app.kinds.map((k) => app.schemas[k]);
    o2.driverOptions = app.orm.em.getKnex();
    o2.ensureDatabase = false;
    app.more.push(await MikroORM.init(o2));
  }
  const gen = app.orm.schema;
  if (app.mode === 'fresh') {
    const r = R.rand();
    if (r < 0.45) await gen.createSchema();
    else if (r < 0.6) await gen.refreshDatabase();
    else if (r < 0.9) await gen.updateSchema();
    else await gen.execute(await gen.getCreateSchemaSQL());
  } else if (app.mode === 'upgrade' || R.chance(0.6)) {
    if (R.chance(0.8)) await gen.updateSchema({ safe: R.chance(0.15) });
    else await gen.execute(await gen.getUpdateSchemaSQL());
  }
  if (R.chance(0.6)) {
    const em = app.orm.em.fork();
    const c2 = Object.assign({}, ctx, { app, R, em, made: [] });
    for (let i = R.int(2, 5); i > 0; i--) newEntity(c2, em, R.pick(app.kinds), 0);
    await flush(c2);
  }
}

async function workCase(ctx, R, steps) {
  const { app } = ctx;
  const fo = {};
  if (R.chance(0.25)) fo.loggerContext = { label: `${R.pick(['req', 'job', 'task'])}-${R.int(1000, 9999)}` };
  if (R.chance(0.04)) fo.disableTransactions = true;
  const orm = app.more.length && R.chance(0.3) ? app.more[0] : app.orm;
  ctx.R = R;
  ctx.em = orm.em.fork(fo);
  ctx.made = [];
  for (const s of steps) {
    ctx.trace.push(s);
    try {
      await STEPS[s](ctx);
    } catch (e) {
      noteError(ctx.ck, s, e);
      ctx.em.clear(); // the failed unit of work is abandoned
      ctx.made = [];
    }
  }
}

function drawSteps(R) {
  let x = R.rand();
  let theme = THEMES[THEMES.length - 1][1];
  for (const [p, list] of THEMES) { if (x < p) { theme = list; break; } x -= p; }
  const out = [];
  for (let i = R.int(6, 14); i > 0; i--) out.push(R.chance(0.15) ? R.pick(ALL_STEPS) : R.pick(theme));
  if (R.chance(0.02)) out.push('killed');
  return out;
}

async function stopCase(ctx, R) {
  const { app } = ctx;
  await workCase(ctx, R, drawSteps(R).slice(0, R.int(1, 3)));
  app.keep = R.chance(0.55);
  const r = R.rand();
  try {
    if (r < 0.12) { await app.orm.schema.dropSchema(); app.dropped = true; } else if (r < 0.25 && !app.keep) {
      await app.orm.schema.dropDatabase(); app.dropped = true;
    }
  } catch (e) { noteError(ctx.ck, 'drop', e); }
  for (const o of app.more) await o.close(true).catch(() => {});
  await app.orm.close(R.chance(0.3));
  app.closedIn = ctx.ck;
  if (R.chance(0.1)) {
    // a late request on the closed ORM
    await app.orm.em.fork().find(S(ctx, app.kinds[0]), {}, { limit: 1 }).catch((e) => noteError(ctx.ck, 'after close', e));
  }
}

async function runCase(i, state) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const ctx = { ck, server: state.server, app: state.app, trace: [] };
  let kind = 'work';
  if (!state.app) kind = 'start';
  else if (state.app.left <= 0 || i === args.cases - 1) kind = 'stop';
  const t0 = Date.now();
  log.caseId = ck;
  let timer;
  try {
    const body = kind === 'start' ? startCase(ctx, R, state.prev) : kind === 'stop' ? stopCase(ctx, R) : workCase(ctx, R, drawSteps(R));
    await Promise.race([body, new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('case timeout')), 20000); })]);
  } catch (e) {
    noteError(ck, kind, e);
  } finally {
    clearTimeout(timer);
  }
  await settle(ctx.app);
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${kind} ${Date.now() - t0}ms ${log._rows.length} events ${ctx.trace.join(' ')}\n`);
  log.endCase();
  if (kind === 'start') {
    state.app = ctx.app;
    if (!ctx.app || !ctx.app.orm) {
      // the start failed: its database goes, the next case starts afresh
      if (ctx.app) await dropDb(state.server, ctx.app.db);
      state.app = null;
      state.prev = null;
    }
  } else if (kind === 'stop') {
    const app = state.app;
    if (!app.keep) await dropDb(state.server, app.db);
    state.prev = app;
    state.app = null;
  } else {
    state.app.left--;
  }
}

// A query can still run when its step has failed (findAndCount runs the
// count and the find together, and the other one goes on when one fails):
// the case waits (up to half a second) for the pool to be idle, so that
// query is logged in its own case.
async function settle(app) {
  let pool;
  try { pool = app && app.orm && app.closedIn === null ? app.orm.em.getKnex().client.pool : null; } catch (e) { pool = null; }
  for (let i = 0; pool && i < 50 && pool.numUsed() > 0; i++) await sleep(10);
}

async function dropDb(server, db) {
  await server.kill(db).catch(() => {});
  await server.admin.query(`DROP DATABASE IF EXISTS \`${db}\``).catch(() => {});
}

async function main() {
  const server = new MariaDB('mikroorm', { lockWaitTimeout: 2 });
  process.on('exit', () => server.stop());
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { server.stop(); process.exit(130); });
  const t0 = Date.now();
  await server.start(mysql);
  const state = { server, app: null, prev: null };
  for (let i = 0; i < args.cases; i++) await runCase(i, state);
  if (state.app && state.app.orm) await state.app.orm.close(true).catch(() => {});
  await log.finish();
  if (VERBOSE) for (const [k, v] of [...stepErrors].sort((a, b) => b[1] - a[1])) process.stderr.write(`${v} ${k}\n`);
  server.stop();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    ` (${appSeq} applications; ${foreign} records of closed applications dropped, ${unsunk} writes outside a logging call, ${stray} console prints from outside MikroORM)\n`);
  process.exit(0);
}

process.on('unhandledRejection', () => {});
main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); process.exit(1); });
