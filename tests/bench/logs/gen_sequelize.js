#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `sequelize` 6.37.8 (its `lib`, CommonJS built by esbuild
 * from TypeScript and JavaScript sources) over the pure JavaScript MySQL
 * driver `mysql2` 3.26.1 (installed with --ignore-scripts: no native module),
 * against a throw-away MariaDB server from Debian 12's `mariadb-server`
 * (1:10.11.x) that the generator starts for the run.
 *
 *   node gen_sequelize.js --repo                    # prints the dir to index
 *   node gen_sequelize.js --out .deps/logs/sequelize.csv.gz [--cases 300] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/sequelize/lib (truth paths `lib/...`),
 * every dialect included (only `mysql` and the abstract code run).
 *
 * Server: `mariadb-install-db` makes a data directory in a temp dir (on
 * /dev/shm when it is writable, else in the OS temp dir), then `mariadbd`
 * (or `mysqld`) runs as root (`--user=root`) on a private Unix socket in that
 * dir and on a free 127.0.0.1 port, without binary log and with relaxed
 * flushing; it is killed and the dir removed at exit.  An admin connection
 * (mysql2 directly, as root over the socket; nothing of it is captured)
 * creates the users `app` (all privileges) and `reader` (SELECT only, for the
 * read replica of some cases), creates each case's own database `seq_cNNNNN`
 * before the case and drops it after, and kills the case's connections from
 * the server side (`KILL CONNECTION`) in the connection-loss steps.
 *
 * Logging: sequelize logs in three ways.
 *   1. The `logging` option: a function the application hands sequelize
 *      (for the instance, or for one query in its options), called through
 *      `Sequelize.prototype.log(...args)` (lib/sequelize.js), which picks the
 *      function from the query's options or the instance's, appends the
 *      benchmark time itself when the function is `console.log`, and calls it
 *      with what its caller handed it.  Callers: `AbstractQuery._logQuery`
 *      (`Executing (default): SELECT ...`, or with `benchmark` the closure it
 *      returns: `Executed (<uuid>): ...` and the elapsed milliseconds as a
 *      second argument; with `logQueryParameters` the bind parameters after
 *      `; `), `MySQLQuery.logWarnings` (`MySQL Warnings (default): ...`, the
 *      rows of `SHOW WARNINGS` when the `showWarnings` option is on) and
 *      `Model.refreshAttributes` (`Not overriding built-in method from
 *      model attribute: ...`).  Each case hands sequelize a function of its
 *      own (logger `logging`), and some queries an `audit` function (logger
 *      `logging/audit`); each records the message it receives with its call
 *      site while its case is open (records of an earlier case's instance are
 *      dropped and counted).  Activity = the message, with ` Elapsed time:
 *      Nms` appended when a number follows it (the benchmark time, rendered
 *      as sequelize renders it for console.log); level INFO.  Some cases
 *      leave `logging` unset, so sequelize uses its default, `console.log`:
 *      those records are taken at the console (below).  Some cases set
 *      `logging: false`; some queries pass `logging: false`, and in some
 *      cases one model is made quiet by hooks that set `options.logging =
 *      false` before its finds, creates, updates and destroys.
 *   2. npm `debug` 4.4.3 (namespaces `sequelize:sql:mysql`, `sequelize:pool`,
 *      `sequelize:connection:mysql`, `sequelize:hooks`), made by
 *      `logger.debugContext(name)` (lib/utils/logger.js), which returns the
 *      `debug` instance itself.  Hooked by `_capture.hookDebug`; which
 *      namespaces are on is drawn per case (all, SQL only, pool and
 *      connections, SQL and hooks, or none).  Activity = what debug prints
 *      without namespace, date and `+Nms`; logger = the namespace; level
 *      `debug`.
 *   3. The console: `Logger.warn` (lib/utils/logger.js) prints `(sequelize)
 *      Warning: ${message}` with console.warn; `Transaction.commit` and
 *      `rollback` print a failed commit or rollback with console.warn; the
 *      default logging function is console.log.  console.log/info/warn/error
 *      are replaced by functions that record what they print (rendered with
 *      util.format, as Node prints it) when the call site lies in the indexed
 *      dir, and swallow everything else (mysql2's own warnings; counted).
 *      logger `console`, level INFO, WARN or ERROR by the console method.
 *
 * Wrappers (frames skipped, their caller is the emitter, code.wrapped=1):
 *   - `Sequelize.prototype.log` (lib/sequelize.js, `log`): it only forwards
 *     the arguments its caller hands it to the logging function (or to
 *     console.log, then joining the benchmark time to the message); the
 *     message is built by the caller.
 *   - `Logger.warn` (lib/utils/logger.js, `warn`): its body only prefixes
 *     `(context) Warning: ` and prints with console.warn.
 *   - `ABSTRACT.warn` (lib/data-types.js, `warn`): it only forwards a data
 *     type warning once per text, with a `>> Check: link` line, to
 *     `logger.warn`; only the dialects that are not run here call it.
 *   `logger.debugContext` is no wrapper: it returns the `debug` instance,
 *   which its callers call directly.
 *
 * A case is one application's session with its own seeded PRNG:
 *   - a Sequelize instance for the case's database with options drawn per
 *     case: the Unix socket or TCP, pool (max, min, idle, acquire, evict),
 *     `define` defaults (underscored, freezeTableName, timestamps, paranoid,
 *     charset), timezone, benchmark, logQueryParameters, showWarnings,
 *     transactionType, isolationLevel, retry, minifyAliases, mysql2
 *     dialectOptions, instance hooks (beforeConnect, afterConnect,
 *     beforeQuery, beforeDefine...), sometimes a read replica (`replication`,
 *     the `reader` user) or a first instance pointed at a closed port;
 *   - 1-4 models drawn from nine kinds (users, posts, comments, tags, orders,
 *     products, accounts, events, categories), defined by `define` or a
 *     class with `init`, with random attribute subsets (strings, texts,
 *     integers, decimals, floats, booleans, enums, JSON, dates, UUIDs,
 *     virtuals), validations, defaults, indexes, paranoid, timestamps,
 *     underscored, versions, scopes, hooks (some throwing), and the
 *     associations between the kinds drawn (hasMany/belongsTo with random
 *     onDelete, hasOne, belongsToMany through a table or a model, a
 *     self-referencing tree);
 *   - `sync` (force, plain, alter, quiet, sometimes twice), sometimes
 *     `authenticate`;
 *   - 5-40 steps: create, bulkCreate (validate, ignoreDuplicates,
 *     updateOnDuplicate, individualHooks), findAll/findOne/findByPk/
 *     findAndCountAll/findOrCreate with where/include/order/limit/group,
 *     update, destroy, restore, increment/decrement, count/sum/max/min,
 *     upsert, association mixins, scopes, reloads, raw queries (replacements,
 *     bind, SELECT/UPDATE types), the query interface (columns, indexes,
 *     describe), an alter sync after a new attribute, managed and unmanaged
 *     transactions with commits, rollbacks and savepoints, isolation levels
 *     and row locks, validation, unique, not-null and foreign-key errors,
 *     optimistic-lock errors, deadlocks, lock waits refused by NOWAIT,
 *     queries against a missing table or column, the server killing the
 *     pooled connections (idle or inside a transaction) and reconnecting,
 *     a pool exhausted by a transaction, parallel queries, truncates;
 *   - then `close()` (sometimes followed by a query on the closed instance).
 * Cases with fewer than 3 records are dropped.
 *
 * Messages contain generated names, dates, `createdAt` timestamps,
 * transaction uuids (`Executing (2f0c...)`), benchmark times and server
 * thread ids; a deadlock's victim and idle evictions may differ from one
 * run to the next: a regenerated log is close to, not equal to, an earlier
 * one.  PMRAG_TIMING=1 prints one line per case to stderr; PMRAG_ONLY=3,17
 * runs only those cases; PMRAG_VERBOSE=1 prints unexpected step failures, the
 * console prints from outside sequelize and a table of the errors the steps
 * met.
 */
const fs = require('fs');
const path = require('path');
const util = require('util');
const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'sequelize', 300);
const NM = path.join(args.deps, 'node_modules');
const SEQ_DIR = path.join(NM, 'sequelize');
const INDEX_DIR = path.join(SEQ_DIR, 'lib');
if (!fs.existsSync(path.join(SEQ_DIR, 'package.json')) || !fs.existsSync(path.join(NM, 'mysql2', 'package.json'))) {
  process.stderr.write(`missing ${SEQ_DIR} or mysql2: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_sequelize.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const VERBOSE = !!process.env.PMRAG_VERBOSE;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// The MariaDB server of the run (_mariadb.js).
const { MariaDB, freePort } = require('./_mariadb');

// ---------------------------------------------------------------------------
// Capture.
const log = new cap.EventLog(args.out, {
  indexDir: INDEX_DIR,
  wrappers: [['lib/sequelize.js', 'log'], ['lib/utils/logger.js', 'warn'], ['lib/data-types.js', 'warn']],
});
cap.hookDebug(log, args.deps, { enable: 'sequelize:*' });
const createDebug = require(require.resolve('debug', { paths: [SEQ_DIR] }));

let foreign = 0; // records of a logging function of another case
let stray = 0; // console output from outside sequelize (swallowed)
const CONSOLE_LEVEL = { log: 'INFO', info: 'INFO', warn: 'WARN', error: 'ERROR' };
for (const m of Object.keys(CONSOLE_LEVEL)) {
  // the generator itself never prints through console
  const f = function capturedConsole(...a) {
    let msg;
    try { msg = util.format(...a); } catch (e) { msg = String(a[0]); }
    if (!log.record(msg, CONSOLE_LEVEL[m], 'console', f)) { stray++; if (VERBOSE) process.stderr.write(`stray ${m}: ${msg.slice(0, 200)}\n`); }
  };
  console[m] = f;
}

// the application's logging functions: one per case (and an audit one)
function loggingFor(ck, name) {
  const f = function appLogging(msg, ...rest) {
    if (log.caseId !== ck) { foreign++; return; }
    let text = String(msg);
    if (typeof rest[0] === 'number') text += ` Elapsed time: ${rest[0]}ms`;
    log.record(text, 'INFO', name, f);
  };
  return f;
}

const mysql = require(path.join(NM, 'mysql2', 'promise'));
const Sq = require(SEQ_DIR);
const { Sequelize, DataTypes: DT, Op, Model, QueryTypes, Transaction } = Sq;

// ---------------------------------------------------------------------------
// Model kinds.
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'gale', 'harbor', 'iris', 'juniper', 'kite',
  'lumen', 'maple', 'nova', 'orbit', 'pine', 'quartz', 'raven', 'sierra', 'tide', 'umber', 'vale', 'willow', 'yarrow'];
const DAY = 86400000;
const T0 = Date.UTC(2024, 0, 1);
const word = (R) => R.pick(WORDS);
const dateIn = (R) => new Date(T0 + R.int(0, 400) * DAY + R.int(0, 86399) * 1000);

const KINDS = {
  User: {
    str: 'username', num: 'age', flag: 'active',
    attrs: (R) => ({
      core: {
        username: { type: DT.STRING(40), allowNull: false, unique: R.chance(0.75), validate: { len: [3, 40] } },
        email: { type: DT.STRING(120), allowNull: R.chance(0.4), validate: { isEmail: true } },
        age: { type: DT.INTEGER, allowNull: true, validate: { min: 0, max: 150 } },
        active: { type: DT.BOOLEAN, allowNull: false, defaultValue: true },
      },
      opt: {
        role: { type: DT.ENUM('admin', 'member', 'guest'), defaultValue: 'member' },
        bio: { type: DT.TEXT },
        settings: { type: DT.JSON },
        balance: { type: DT.DECIMAL(10, 2), defaultValue: 0 },
        lastLogin: { type: DT.DATE },
        displayName: { type: DT.VIRTUAL, get() { return `${this.getDataValue('username')} <${this.getDataValue('email')}>`; } },
      },
    }),
    row: (R, n, has) => {
      const u = `${word(R)}_${n}`;
      const r = { username: u, email: `${u}@example.${R.pick(['org', 'com', 'net'])}`, age: R.int(14, 90), active: R.chance(0.8) };
      if (has.role) r.role = R.pick(['admin', 'member', 'member', 'guest']);
      if (has.bio && R.chance(0.5)) r.bio = `${word(R)} ${word(R)} ${word(R)}`;
      if (has.settings) r.settings = { theme: R.pick(['dark', 'light']), notify: R.chance(0.5) };
      if (has.balance) r.balance = (R.int(0, 100000) / 100).toFixed(2);
      if (has.lastLogin && R.chance(0.6)) r.lastLogin = dateIn(R);
      return r;
    },
    bad: (R, n) => R.pick([{ username: 'x' }, { username: `u_${n}`, email: 'not-an-email' }, { username: `u_${n}`, age: -3 },
      { username: `u_${n}`, age: 400 }, { email: `e${n}@example.org` }]),
  },
  Post: {
    str: 'title', num: 'views', flag: 'published',
    attrs: (R) => ({
      core: {
        title: { type: DT.STRING(120), allowNull: false, validate: { notEmpty: true, len: [1, 120] } },
        views: { type: DT.INTEGER, allowNull: false, defaultValue: 0, validate: { min: 0 } },
        published: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: {
        body: { type: DT.TEXT },
        slug: { type: DT.STRING(140), unique: true },
        rating: { type: DT.FLOAT },
        publishedAt: { type: DT.DATE },
        meta: { type: DT.JSON },
      },
    }),
    row: (R, n, has) => {
      const t = `${word(R)} ${word(R)} ${n}`;
      const r = { title: t, views: R.int(0, 5000), published: R.chance(0.6) };
      if (has.body) r.body = `${t} `.repeat(R.int(1, 6));
      if (has.slug) r.slug = t.replace(/ /g, '-');
      if (has.rating) r.rating = R.int(0, 50) / 10;
      if (has.publishedAt && r.published) r.publishedAt = dateIn(R);
      if (has.meta) r.meta = { words: R.int(10, 900), lang: R.pick(['en', 'de', 'fr']) };
      return r;
    },
    bad: (R) => R.pick([{ title: '' }, { title: 'ok', views: -1 }, { views: 3 }, { title: 'y'.repeat(130) }]),
  },
  Comment: {
    str: 'text', num: 'score', flag: 'flagged',
    attrs: (R) => ({
      core: {
        text: { type: DT.STRING(500), allowNull: false, validate: { len: [1, 500] } },
        score: { type: DT.INTEGER, defaultValue: 0 },
        flagged: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: {
        ip: { type: DT.STRING(45), validate: { isIP: true } },
        lang: { type: DT.CHAR(2), defaultValue: 'en' },
        editedAt: { type: DT.DATE(3) },
      },
    }),
    row: (R, n, has) => {
      const r = { text: `${word(R)} says ${word(R)} (${n})`, score: R.int(-5, 20), flagged: R.chance(0.1) };
      if (has.ip) r.ip = `10.${R.int(0, 255)}.${R.int(0, 255)}.${R.int(1, 254)}`;
      if (has.lang) r.lang = R.pick(['en', 'de', 'fr', 'es']);
      return r;
    },
    bad: (R) => R.pick([{ text: '' }, { text: 'hi', ip: '999.1.1' }, { score: 2 }]),
  },
  Tag: {
    str: 'name', num: 'uses', flag: 'featured',
    attrs: (R) => ({
      core: {
        name: { type: DT.STRING(30), allowNull: false, unique: true, validate: { is: /^[a-z0-9-]+$/ } },
        uses: { type: DT.INTEGER, defaultValue: 0 },
        featured: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: { color: { type: DT.STRING(7), validate: { is: /^#[0-9a-f]{6}$/ } } },
    }),
    row: (R, n, has) => {
      const r = { name: `${word(R)}-${n}`, uses: R.int(0, 100), featured: R.chance(0.2) };
      if (has.color) r.color = `#${R.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
      return r;
    },
    bad: (R) => R.pick([{ name: 'Has Spaces' }, { name: 'ok-tag', color: 'red' }, { uses: 1 }]),
  },
  Order: {
    str: 'code', num: 'total', flag: 'paid',
    attrs: (R) => ({
      core: {
        code: { type: DT.STRING(20), allowNull: false, unique: true },
        total: { type: DT.DECIMAL(12, 2), allowNull: false, defaultValue: 0, validate: { min: 0 } },
        paid: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: {
        status: { type: DT.ENUM('pending', 'paid', 'shipped', 'cancelled'), defaultValue: 'pending' },
        placedAt: { type: DT.DATE, defaultValue: DT.NOW },
        ref: { type: DT.UUID, defaultValue: DT.UUIDV4 },
        notes: { type: DT.TEXT },
      },
    }),
    row: (R, n, has) => {
      const r = { code: `ORD-${n}-${R.int(100, 999)}`, total: (R.int(100, 500000) / 100).toFixed(2), paid: R.chance(0.5) };
      if (has.status) r.status = R.pick(['pending', 'paid', 'shipped', 'cancelled']);
      if (has.notes && R.chance(0.3)) r.notes = `leave at ${word(R)}`;
      return r;
    },
    bad: (R, n) => R.pick([{ code: `B-${n}`, total: -5 }, { total: 3 }, { code: null }]),
  },
  Product: {
    str: 'sku', num: 'stock', flag: 'available',
    attrs: (R) => ({
      core: {
        sku: { type: DT.STRING(32), allowNull: false, unique: true, validate: { isAlphanumeric: true } },
        stock: { type: DT.INTEGER, allowNull: false, defaultValue: 0, validate: { min: 0 } },
        available: { type: DT.BOOLEAN, defaultValue: true },
      },
      opt: {
        price: { type: DT.DECIMAL(10, 2), validate: { min: 0 } },
        weight: { type: DT.DOUBLE },
        label: { type: DT.STRING(80) },
        dims: { type: DT.JSON },
      },
    }),
    row: (R, n, has) => {
      const r = { sku: `SKU${n}${R.int(100, 999)}`, stock: R.int(0, 300), available: R.chance(0.85) };
      if (has.price) r.price = (R.int(50, 99999) / 100).toFixed(2);
      if (has.weight) r.weight = R.int(1, 5000) / 100;
      if (has.label) r.label = `${word(R)} ${word(R)}`;
      if (has.dims) r.dims = { w: R.int(1, 90), h: R.int(1, 90) };
      return r;
    },
    bad: (R, n) => R.pick([{ sku: 'has-dash', stock: 1 }, { sku: `S${n}`, stock: -2 }, { stock: 3 }]),
  },
  Account: {
    str: 'iban', num: 'balance', flag: 'frozen',
    attrs: (R) => ({
      core: {
        iban: { type: DT.STRING(34), allowNull: false, unique: true, validate: { len: [15, 34] } },
        balance: { type: DT.BIGINT, allowNull: false, defaultValue: 0 },
        frozen: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: {
        currency: { type: DT.CHAR(3), defaultValue: 'EUR', validate: { isIn: [['EUR', 'USD', 'GBP']] } },
        openedOn: { type: DT.DATEONLY },
      },
    }),
    row: (R, n, has) => {
      const r = { iban: `DE${String(R.int(10, 99))}${String(n).padStart(6, '0')}${R.int(100000000, 999999999)}`,
        balance: R.int(0, 1000000), frozen: R.chance(0.1) };
      if (has.currency) r.currency = R.pick(['EUR', 'USD', 'GBP']);
      if (has.openedOn) r.openedOn = dateIn(R).toISOString().slice(0, 10);
      return r;
    },
    bad: (R) => R.pick([{ iban: 'DE12' }, { iban: 'DE0012345678901234', currency: 'XXX' }, { balance: 5 }]),
  },
  Event: {
    str: 'kind', num: 'seq', flag: 'handled',
    attrs: (R) => ({
      core: {
        kind: { type: DT.STRING(40), allowNull: false, validate: { isIn: [['login', 'logout', 'purchase', 'refund', 'error', 'ping']] } },
        seq: { type: DT.INTEGER, defaultValue: 0 },
        handled: { type: DT.BOOLEAN, defaultValue: false },
      },
      opt: {
        payload: { type: DT.JSON },
        at: { type: DT.DATE(3) },
        source: { type: DT.STRING(60) },
      },
    }),
    row: (R, n, has) => {
      const r = { kind: R.pick(['login', 'logout', 'purchase', 'refund', 'error', 'ping']), seq: n, handled: R.chance(0.3) };
      if (has.payload) r.payload = { n, ok: R.chance(0.8) };
      if (has.at) r.at = dateIn(R);
      if (has.source) r.source = R.pick(['web', 'ios', 'android', 'api']);
      return r;
    },
    bad: (R) => R.pick([{ kind: 'explode' }, { seq: 1 }]),
  },
  Category: {
    str: 'name', num: 'position', flag: 'visible',
    attrs: (R) => ({
      core: {
        name: { type: DT.STRING(60), allowNull: false, unique: R.chance(0.7), validate: { notEmpty: true } },
        position: { type: DT.INTEGER, defaultValue: 0 },
        visible: { type: DT.BOOLEAN, defaultValue: true },
      },
      opt: { description: { type: DT.TEXT }, icon: { type: DT.STRING(20) } },
    }),
    row: (R, n, has) => {
      const r = { name: `${word(R)} ${n}`, position: R.int(0, 50), visible: R.chance(0.85) };
      if (has.description) r.description = `all about ${word(R)}`;
      if (has.icon) r.icon = R.pick(['star', 'box', 'tag', 'bolt']);
      return r;
    },
    bad: (R) => R.pick([{ name: '' }, { position: 2 }]),
  },
};

// associations between kinds: [source, target, kind of link]
const LINKS = [
  ['User', 'Post', 'hasMany'], ['Post', 'Comment', 'hasMany'], ['User', 'Comment', 'hasMany'],
  ['Post', 'Tag', 'belongsToMany'], ['User', 'Order', 'hasMany'], ['Order', 'Product', 'belongsToMany'],
  ['User', 'Account', 'hasOne'], ['Account', 'Event', 'hasMany'], ['Category', 'Product', 'hasMany'],
  ['Category', 'Category', 'tree'], ['User', 'Tag', 'belongsToMany'],
];

function pickKinds(R) {
  const n = R.pick([1, 2, 2, 3, 3, 3, 4, 4]);
  const all = Object.keys(KINDS);
  const kinds = [R.pick(all)];
  while (kinds.length < n) {
    const related = new Set();
    for (const [a, b] of LINKS) {
      if (kinds.includes(a) && !kinds.includes(b)) related.add(b);
      if (kinds.includes(b) && !kinds.includes(a)) related.add(a);
    }
    const rel = [...related].sort();
    const rest = all.filter((k) => !kinds.includes(k));
    kinds.push(rel.length && R.chance(0.8) ? R.pick(rel) : R.pick(rest));
  }
  return kinds;
}

// ---------------------------------------------------------------------------
// Building a case's schema.
function defineModels(ctx, R) {
  const { seq } = ctx;
  for (const k of ctx.kinds) {
    const spec = KINDS[k];
    const a = spec.attrs(R);
    const attrs = Object.assign({}, a.core);
    const has = {};
    for (const [name, def] of Object.entries(a.opt)) if (R.chance(0.5)) { attrs[name] = def; has[name] = true; }
    if (R.chance(0.03)) attrs.previous = { type: DT.STRING(40) }; // shadows a Model method: sequelize logs it
    const o = {};
    if (R.chance(0.25)) o.timestamps = R.chance(0.3) ? false : true;
    const ts = o.timestamps !== undefined ? o.timestamps : ctx.define.timestamps !== false;
    if (ts && R.chance(0.3)) o.paranoid = true;
    if (R.chance(0.2)) o.underscored = !ctx.define.underscored;
    if (R.chance(0.15)) o.tableName = `${R.pick(['tbl_', 'app_', ''])}${k.toLowerCase()}${R.pick(['s', '_list', 'data'])}`;
    if (ts && R.chance(0.15)) { o.createdAt = R.pick(['created', 'createdOn']); o.updatedAt = R.pick([false, 'modified']); }
    if (R.chance(0.12)) o.version = true;
    // indexes
    const idx = [];
    if (R.chance(0.4)) idx.push({ fields: [spec.num] });
    if (R.chance(0.25)) idx.push({ name: `${k.toLowerCase()}_flag_num`, fields: [spec.flag, spec.num] });
    if (R.chance(0.15) && !attrs[spec.str].unique) idx.push({ unique: true, fields: [spec.str] });
    if (R.chance(0.1)) idx.push({ type: 'FULLTEXT', fields: [spec.str] });
    if (idx.length) o.indexes = idx;
    // scopes
    o.scopes = {};
    if (R.chance(0.4)) o.scopes.flagged = { where: { [spec.flag]: true } };
    if (R.chance(0.3)) o.scopes.top = { order: [[spec.num, 'DESC']], limit: R.int(2, 5) };
    if (R.chance(0.25)) o.scopes.above = (v) => ({ where: { [spec.num]: { [Op.gte]: v } } });
    if (R.chance(0.1)) o.defaultScope = { where: { [spec.flag]: spec.flag === 'flagged' || spec.flag === 'frozen' ? false : true } };
    // hooks
    o.hooks = {};
    if (R.chance(0.3)) o.hooks.beforeValidate = (inst) => { if (typeof inst[spec.str] === 'string') inst[spec.str] = inst[spec.str].trim(); };
    if (R.chance(0.25)) o.hooks.beforeCreate = (inst) => { if (inst[spec.str] === 'forbidden') throw new Error(`${k} name refused by hook`); };
    if (R.chance(0.2)) o.hooks.afterCreate = () => {};
    if (R.chance(0.2)) o.hooks.beforeUpdate = () => {};
    if (R.chance(0.15)) o.hooks.beforeDestroy = (inst) => { if (inst[spec.num] === 13) throw new Error(`unlucky ${k} cannot be destroyed`); };
    if (R.chance(0.15)) o.hooks.afterFind = () => {};
    if (R.chance(0.15)) o.hooks.beforeBulkCreate = () => {};
    if (R.chance(0.1)) o.hooks.validationFailed = () => {};
    let M;
    const useClass = R.chance(0.3);
    const fieldShadow = useClass && R.chance(0.1) ? Object.keys(has).find((x) => attrs[x].type !== DT.VIRTUAL) : null;
    if (useClass) {
      const C = { [k]: class extends Model {} }[k];
      if (fieldShadow) {
        // a public class field shadowing an attribute (a mistake sequelize warns about)
        const D = { [k]: class extends C { [fieldShadow]; } }[k];
        M = D.init(attrs, Object.assign({ sequelize: seq, modelName: k }, o));
      } else {
        M = C.init(attrs, Object.assign({ sequelize: seq, modelName: k }, o));
      }
    } else {
      M = seq.define(k, attrs, o);
    }
    ctx.models[k] = M;
    ctx.has[k] = has;
    ctx.ids[k] = [];
    ctx.scopes[k] = Object.keys(o.scopes);
    ctx.paranoid[k] = !!o.paranoid;
    ctx.versioned[k] = !!o.version;
    ctx.uniqueStr[k] = !!attrs[spec.str].unique || idx.some((x) => x.unique);
  }
  // associations
  const onDel = () => R.pick(['CASCADE', 'SET NULL', 'RESTRICT', 'NO ACTION', undefined]);
  for (const [a, b, kind] of LINKS) {
    if (!ctx.kinds.includes(a) || !ctx.kinds.includes(b)) continue;
    const A = ctx.models[a], B = ctx.models[b];
    if (kind === 'tree') {
      const del = onDel();
      const children = A.hasMany(A, { as: 'children', foreignKey: 'parentId', onDelete: del });
      const parent = A.belongsTo(A, { as: 'parent', foreignKey: 'parentId', onDelete: del });
      ctx.assocs.push(children, parent);
      continue;
    }
    if (kind === 'belongsToMany') {
      let through;
      if (R.chance(0.5)) {
        through = `${a}${b}s`;
      } else {
        const attrs = a === 'Order' ? { qty: { type: DT.INTEGER, defaultValue: 1 }, price: { type: DT.DECIMAL(10, 2) } }
          : { weight: { type: DT.INTEGER, defaultValue: 1 } };
        through = seq.define(`${a}${b}`, attrs, { timestamps: R.chance(0.5) });
        ctx.throughs.push(through);
      }
      ctx.assocs.push(A.belongsToMany(B, { through }), B.belongsToMany(A, { through }));
      continue;
    }
    const alias = a === 'User' && b === 'Post' && R.chance(0.4) ? 'author' : null;
    const fk = alias ? 'authorId' : undefined;
    const del = onDel();
    const opts = (x) => Object.assign({ onDelete: del }, alias ? { foreignKey: fk } : {}, x);
    if (kind === 'hasOne') {
      ctx.assocs.push(A.hasOne(B, opts()), B.belongsTo(A, opts()));
    } else {
      ctx.assocs.push(A.hasMany(B, opts(alias ? { as: 'writings' } : {})), B.belongsTo(A, opts(alias ? { as: alias } : {})));
    }
  }
}

// ---------------------------------------------------------------------------
// Steps.
function qo(ctx, R, extra) {
  // per-query logging options
  const o = Object.assign({}, extra);
  const r = R.rand();
  if (r < ctx.p.quietQuery) o.logging = false;
  else if (r < ctx.p.quietQuery + 0.05) o.logging = ctx.audit;
  if (R.chance(ctx.p.benchQuery)) o.benchmark = true;
  if (R.chance(0.06)) o.logQueryParameters = true;
  return o;
}

const kindOf = (ctx, R) => R.pick(ctx.kinds);
const mdl = (ctx, k) => ctx.models[k];
const spec = (k) => KINDS[k];
const someId = (ctx, R, k) => (ctx.ids[k].length ? R.pick(ctx.ids[k]) : R.int(1, 5));
const belongsTos = (ctx, k) => ctx.assocs.filter((x) => x.associationType === 'BelongsTo' && x.source === ctx.models[k]);
const assocsOf = (ctx, k) => ctx.assocs.filter((x) => x.source === ctx.models[k]);

function makeRow(ctx, R, k) {
  const r = spec(k).row(R, ++ctx.n, ctx.has[k]);
  for (const bt of belongsTos(ctx, k)) {
    const tk = bt.target.name;
    if (ctx.ids[tk] && ctx.ids[tk].length && R.chance(0.85)) r[bt.foreignKey] = R.pick(ctx.ids[tk]);
  }
  return r;
}

function remember(ctx, k, insts) {
  for (const i of [].concat(insts || [])) if (i && i.id !== undefined && i.id !== null) ctx.ids[k].push(i.id);
}

function whereFor(ctx, R, k) {
  const s = spec(k);
  const w = R.int(0, 8);
  switch (w) {
    case 0: return { [s.num]: { [Op.gt]: R.int(0, 100) } };
    case 1: return { [s.flag]: R.chance(0.5) };
    case 2: return { id: { [Op.in]: R.sample(ctx.ids[k].length ? ctx.ids[k] : [1, 2, 3], R.int(1, 4)) } };
    case 3: return { [s.str]: { [Op.like]: `${word(R)}%` } };
    case 4: return { [Op.or]: [{ [s.num]: { [Op.lt]: R.int(0, 50) } }, { [s.flag]: true }] };
    case 5: return { [s.num]: { [Op.between]: [R.int(0, 20), R.int(21, 400)] } };
    case 6: return { id: someId(ctx, R, k) };
    case 7: return { [s.str]: { [Op.ne]: null }, [s.num]: { [Op.not]: R.int(0, 3) } };
    default: return {};
  }
}

function includeFor(ctx, R, k, depth) {
  const as = assocsOf(ctx, k);
  if (!as.length) return undefined;
  const inc = [];
  for (const a of R.sample(as, R.int(1, Math.min(2, as.length)))) {
    const i = { association: a };
    if (R.chance(0.3)) i.required = true;
    if (a.associationType === 'HasMany' && R.chance(0.2)) i.separate = true;
    if (a.associationType === 'BelongsToMany' && R.chance(0.5)) i.through = { attributes: [] };
    if (R.chance(0.2)) i.where = { [spec(a.target.name).flag]: true };
    if (R.chance(0.2)) i.attributes = ['id', spec(a.target.name).str];
    if (!depth && R.chance(0.15)) {
      const sub = includeFor(ctx, R, a.target.name, 1);
      if (sub) i.include = sub;
    }
    if (a.target.options && a.target.options.paranoid && R.chance(0.2)) i.paranoid = false;
    inc.push(i);
  }
  return inc;
}

function orderFor(ctx, R, k) {
  const s = spec(k);
  return R.pick([[['id', 'ASC']], [[s.num, 'DESC']], [[s.str, 'ASC'], ['id', 'DESC']], undefined]);
}

const STEPS = {};

STEPS.create = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const row = makeRow(ctx, R, k);
  const o = qo(ctx, R);
  const kids = assocsOf(ctx, k).filter((a) => a.associationType === 'HasMany' && a.target !== a.source);
  if (kids.length && R.chance(0.2)) {
    const a = R.pick(kids);
    row[a.as] = Array.from({ length: R.int(1, 3) }, () => makeRow(ctx, R, a.target.name));
    o.include = [a];
  }
  if (R.chance(0.1)) o.fields = Object.keys(row).filter((f) => R.chance(0.8) || f === spec(k).str);
  remember(ctx, k, await mdl(ctx, k).create(row, o));
};

STEPS.bulkCreate = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const rows = Array.from({ length: R.int(2, 12) }, () => makeRow(ctx, R, k));
  const o = qo(ctx, R);
  if (R.chance(0.3)) o.validate = true;
  if (R.chance(0.12)) o.ignoreDuplicates = true;
  else if (R.chance(0.15)) o.updateOnDuplicate = [spec(k).num, spec(k).flag];
  if (R.chance(0.15)) o.individualHooks = true;
  if (R.chance(0.1)) rows.push(Object.assign(makeRow(ctx, R, k), spec(k).bad(R, ctx.n)));
  if (R.chance(0.1) && rows.length > 1) rows[1][spec(k).str] = rows[0][spec(k).str];
  remember(ctx, k, await mdl(ctx, k).bulkCreate(rows, o));
};

STEPS.findAll = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const o = qo(ctx, R, { where: whereFor(ctx, R, k) });
  if (R.chance(0.45)) { const inc = includeFor(ctx, R, k); if (inc) o.include = inc; }
  const ord = orderFor(ctx, R, k);
  if (ord) o.order = ord;
  if (R.chance(0.5)) o.limit = R.int(1, 20);
  if (o.limit && R.chance(0.4)) o.offset = R.int(0, 10);
  if (R.chance(0.15)) o.attributes = ['id', spec(k).str, spec(k).num];
  if (R.chance(0.1) && !o.include) o.raw = true;
  if (ctx.paranoid[k] && R.chance(0.25)) o.paranoid = false;
  if (R.chance(0.05)) o.subQuery = false;
  await mdl(ctx, k).findAll(o);
};

STEPS.findOne = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const v = R.int(0, 4);
  if (v === 0) await M.findByPk(someId(ctx, R, k), qo(ctx, R, R.chance(0.3) ? { include: includeFor(ctx, R, k) } : {}));
  else if (v === 1) await M.findOne(qo(ctx, R, { where: whereFor(ctx, R, k), order: orderFor(ctx, R, k) }));
  else if (v === 2) {
    const o = qo(ctx, R, { where: whereFor(ctx, R, k), limit: R.int(2, 10), offset: R.int(0, 5) });
    const inc = R.chance(0.5) ? includeFor(ctx, R, k) : undefined;
    if (inc) { o.include = inc; o.distinct = R.chance(0.7); }
    await M.findAndCountAll(o);
  } else if (v === 3) {
    const s = spec(k);
    const existing = R.chance(0.5) ? await M.findOne(qo(ctx, R, { order: [['id', 'DESC']] })) : null;
    const row = makeRow(ctx, R, k);
    const where = { [s.str]: existing ? existing[s.str] : row[s.str] };
    const defaults = Object.assign({}, row);
    delete defaults[s.str];
    if (R.chance(0.08)) defaults.nonexistentField = 1; // sequelize warns about it
    const [inst] = await M.findOrCreate(qo(ctx, R, { where, defaults }));
    remember(ctx, k, inst);
  } else {
    await M.findAll(qo(ctx, R, { where: whereFor(ctx, R, k), rejectOnEmpty: R.chance(0.3), limit: 3 }));
  }
};

STEPS.update = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const v = R.int(0, 3);
  if (v === 0) {
    const o = qo(ctx, R, { where: whereFor(ctx, R, k) });
    if (R.chance(0.2)) o.individualHooks = true;
    if (R.chance(0.1)) o.limit = R.int(1, 3);
    await M.update({ [s.num]: R.int(0, 99), [s.flag]: R.chance(0.5) }, o);
  } else if (v === 1) {
    const inst = await M.findByPk(someId(ctx, R, k), qo(ctx, R));
    if (!inst) return;
    inst.set(s.num, R.int(0, 99));
    if (R.chance(0.3)) inst.set(s.flag, !inst.get(s.flag));
    await inst.save(qo(ctx, R));
  } else if (v === 2) {
    const inst = await M.findOne(qo(ctx, R, { where: whereFor(ctx, R, k) }));
    if (inst) await inst.update(R.chance(0.85) ? { [s.num]: R.int(0, 99) } : spec(k).bad(R, ctx.n), qo(ctx, R));
  } else {
    // optimistic locking (versioned models) or a lost update otherwise
    const id = someId(ctx, R, k);
    const a = await M.findByPk(id, qo(ctx, R));
    const b = await M.findByPk(id, qo(ctx, R));
    if (!a || !b) return;
    await a.update({ [s.num]: R.int(0, 50) }, qo(ctx, R));
    await b.update({ [s.num]: R.int(51, 99) }, qo(ctx, R));
  }
};

STEPS.destroy = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  if (R.chance(0.5)) {
    const inst = await M.findByPk(someId(ctx, R, k), qo(ctx, R));
    if (inst) await inst.destroy(qo(ctx, R, ctx.paranoid[k] && R.chance(0.2) ? { force: true } : {}));
  } else {
    const o = qo(ctx, R, { where: whereFor(ctx, R, k) });
    if (R.chance(0.2)) o.individualHooks = true;
    if (ctx.paranoid[k] && R.chance(0.2)) o.force = true;
    if (R.chance(0.1)) o.limit = R.int(1, 3);
    await M.destroy(o);
  }
};

STEPS.restore = async (ctx, R) => {
  const ks = ctx.kinds.filter((k) => ctx.paranoid[k]);
  if (!ks.length) return STEPS.findAll(ctx, R);
  const k = R.pick(ks);
  const M = mdl(ctx, k);
  if (R.chance(0.5)) {
    await M.restore(qo(ctx, R, { where: whereFor(ctx, R, k) }));
  } else {
    const gone = await M.findOne(qo(ctx, R, { where: { [M.options.deletedAt || 'deletedAt']: { [Op.ne]: null } }, paranoid: false }));
    if (gone) await gone.restore(qo(ctx, R));
  }
};

STEPS.increment = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const v = R.int(0, 3);
  if (v === 0) await M.increment(s.num, qo(ctx, R, { by: R.int(1, 5), where: whereFor(ctx, R, k) }));
  else if (v === 1) await M.decrement({ [s.num]: R.int(1, 3) }, qo(ctx, R, { where: { id: someId(ctx, R, k) } }));
  else {
    const inst = await M.findByPk(someId(ctx, R, k), qo(ctx, R));
    if (inst) await (v === 2 ? inst.increment(s.num, qo(ctx, R, { by: R.int(1, 9) })) : inst.decrement(s.num, qo(ctx, R)));
  }
};

STEPS.aggregate = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const v = R.int(0, 5);
  if (v === 0) {
    const o = qo(ctx, R, { where: whereFor(ctx, R, k) });
    if (R.chance(0.3)) { const inc = includeFor(ctx, R, k); if (inc) { o.include = inc; o.distinct = true; } }
    await M.count(o);
  } else if (v === 1) await M.sum(s.num, qo(ctx, R, { where: whereFor(ctx, R, k) }));
  else if (v === 2) await M.max(s.num, qo(ctx, R));
  else if (v === 3) await M.min(R.pick([s.num, 'id']), qo(ctx, R, { where: whereFor(ctx, R, k) }));
  else if (v === 4) await M.aggregate(s.num, R.pick(['avg', 'count', 'sum']), qo(ctx, R, { distinct: R.chance(0.3) }));
  else {
    await M.findAll(qo(ctx, R, { attributes: [s.flag, [ctx.seq.fn('COUNT', ctx.seq.col('id')), 'n'], [ctx.seq.fn('MAX', ctx.seq.col(s.num)), 'top']],
      group: [s.flag], raw: true, order: R.chance(0.5) ? [[ctx.seq.literal('n'), 'DESC']] : undefined }));
  }
};

STEPS.upsert = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const row = makeRow(ctx, R, k);
  if (ctx.ids[k].length && R.chance(0.5)) row.id = R.pick(ctx.ids[k]);
  const [inst] = await mdl(ctx, k).upsert(row, qo(ctx, R));
  remember(ctx, k, inst);
};

STEPS.raw = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const t = M.getTableName();
  const v = R.int(0, 7);
  const seq = ctx.seq;
  if (v === 0) await seq.query(`SELECT COUNT(*) AS n FROM \`${t}\` WHERE \`${M.rawAttributes[s.num].field}\` > :min`, qo(ctx, R, { replacements: { min: R.int(0, 50) }, type: QueryTypes.SELECT }));
  else if (v === 1) await seq.query(`SELECT * FROM \`${t}\` WHERE id = $1`, qo(ctx, R, { bind: [someId(ctx, R, k)], type: QueryTypes.SELECT }));
  else if (v === 2) await seq.query(`SELECT * FROM \`${t}\` WHERE id IN (?) LIMIT 5`, qo(ctx, R, { replacements: [[someId(ctx, R, k), someId(ctx, R, k)]], model: M, mapToModel: true }));
  else if (v === 3) await seq.query(`UPDATE \`${t}\` SET \`${M.rawAttributes[s.num].field}\` = \`${M.rawAttributes[s.num].field}\` + 1 WHERE id = ?`, qo(ctx, R, { replacements: [someId(ctx, R, k)], type: QueryTypes.UPDATE }));
  else if (v === 4) await seq.query(R.pick(['SHOW TABLES', 'SELECT 1 + 1 AS two', 'SELECT NOW() AS now, DATABASE() AS db', 'SHOW STATUS LIKE \'Threads_connected\'',
    'SELECT SLEEP(0.005) AS slept', 'SELECT @@session.time_zone AS tz, @@tx_isolation AS iso']), qo(ctx, R, { type: QueryTypes.SELECT }));
  else if (v === 5) await seq.query(`SELECT \`${M.rawAttributes[s.flag].field}\` AS f, COUNT(*) AS n FROM \`${t}\` GROUP BY 1`, qo(ctx, R, { raw: true }));
  else if (v === 6) await seq.query(`DELETE FROM \`${t}\` WHERE id = :id`, qo(ctx, R, { replacements: { id: R.int(9000, 9999) }, type: QueryTypes.DELETE }));
  else await seq.query(`SELECT CAST(? AS SIGNED) AS x, ? + 0 AS y`, qo(ctx, R, { replacements: [R.pick(['12abc', '7', 'x']), R.pick(['3', '4z'])], type: QueryTypes.SELECT }));
};

STEPS.missing = async (ctx, R) => {
  const seq = ctx.seq;
  const k = kindOf(ctx, R);
  const t = mdl(ctx, k).getTableName();
  const v = R.int(0, 4);
  if (v === 0) await seq.query(`SELECT * FROM \`${R.pick(['archive', 'legacy_users', 'audit_log', 'sessions'])}\` LIMIT 10`, qo(ctx, R));
  else if (v === 1) {
    // a model the application never synced
    const G = ctx.ghost || (ctx.ghost = seq.define(R.pick(['Session', 'AuditEntry', 'Invoice']), { note: DT.STRING, at: DT.DATE }));
    await G.findAll(qo(ctx, R, { where: { note: { [Op.ne]: null } } }));
  } else if (v === 2) await seq.query(`SELECT \`missing_col\` FROM \`${t}\``, qo(ctx, R));
  else if (v === 3) await seq.query(`SELEC id FROM \`${t}\``, qo(ctx, R));
  else await seq.query(`INSERT INTO \`${t}\` (\`nope\`) VALUES (1)`, qo(ctx, R));
};

// one operation inside a transaction
async function txOp(ctx, R, t) {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const v = R.int(0, 6);
  const o = (x) => qo(ctx, R, Object.assign({ transaction: t }, x));
  if (v === 0) remember(ctx, k, await M.create(makeRow(ctx, R, k), o()));
  else if (v === 1) await M.update({ [s.num]: R.int(0, 99) }, o({ where: whereFor(ctx, R, k) }));
  else if (v === 2) await M.findAll(o({ where: whereFor(ctx, R, k), lock: R.pick([true, t.LOCK.UPDATE, t.LOCK.SHARE]), skipLocked: R.chance(0.2), limit: 5 }));
  else if (v === 3) await M.increment(s.num, o({ where: { id: someId(ctx, R, k) } }));
  else if (v === 4) await M.destroy(o({ where: { id: someId(ctx, R, k) } }));
  else if (v === 5) remember(ctx, k, await M.bulkCreate(Array.from({ length: R.int(2, 4) }, () => makeRow(ctx, R, k)), o()));
  else await M.count(o({ where: whereFor(ctx, R, k) }));
}

function txOptions(ctx, R) {
  const o = {};
  if (R.chance(0.3)) o.isolationLevel = R.pick(Object.values(Transaction.ISOLATION_LEVELS));
  if (R.chance(0.15)) o.type = R.pick(Object.values(Transaction.TYPES));
  if (R.chance(0.1)) o.logging = false;
  if (R.chance(0.1)) o.benchmark = true;
  return o;
}

STEPS.txManaged = async (ctx, R) => {
  const fail = R.chance(0.25);
  const nested = R.chance(0.3);
  const n = R.int(1, 4);
  await ctx.seq.transaction(txOptions(ctx, R), async (t) => {
    if (R.chance(0.3)) t.afterCommit(() => {});
    for (let i = 0; i < n; i++) await txOp(ctx, R, t);
    if (nested) {
      const nfail = R.chance(0.5);
      try {
        await ctx.seq.transaction({ transaction: t }, async (sp) => {
          await txOp(ctx, R, sp);
          if (nfail) throw new Error('inner step failed');
        });
      } catch (e) { if (e.message !== 'inner step failed') throw e; }
      await txOp(ctx, R, t);
    }
    if (fail) throw new Error('business rule violated');
  }).catch((e) => { if (e.message !== 'business rule violated') throw e; });
};

STEPS.txUnmanaged = async (ctx, R) => {
  const t = await ctx.seq.transaction(txOptions(ctx, R));
  try {
    for (let i = R.int(1, 3); i > 0; i--) await txOp(ctx, R, t);
    if (R.chance(0.4)) {
      const sp = await ctx.seq.transaction({ transaction: t });
      await txOp(ctx, R, sp);
      if (R.chance(0.6)) await sp.rollback(); else await sp.commit();
      if (R.chance(0.5)) await txOp(ctx, R, t);
    }
  } catch (e) {
    await t.rollback().catch(() => {});
    throw e;
  }
  if (R.chance(0.65)) await t.commit(); else await t.rollback();
  if (R.chance(0.08)) await t.commit(); // finished already
};

STEPS.validation = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const bad = Object.assign(makeRow(ctx, R, k), spec(k).bad(R, ctx.n));
  for (const [f, v] of Object.entries(bad)) if (v === undefined) delete bad[f];
  const v = R.int(0, 3);
  if (v === 0) await M.create(bad, qo(ctx, R));
  else if (v === 1) await M.build(bad).validate();
  else if (v === 2) await M.bulkCreate([makeRow(ctx, R, k), bad], qo(ctx, R, { validate: true }));
  else await M.create(Object.assign(makeRow(ctx, R, k), { [spec(k).str]: R.chance(0.5) ? null : 'forbidden' }), qo(ctx, R));
};

STEPS.unique = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  const ex = await M.findOne(qo(ctx, R, { order: [['id', R.pick(['ASC', 'DESC'])]], paranoid: false }));
  if (!ex) { remember(ctx, k, await M.create(makeRow(ctx, R, k), qo(ctx, R))); return; }
  const row = makeRow(ctx, R, k);
  if (ctx.uniqueStr[k] && R.chance(0.7)) row[s.str] = ex[s.str];
  else row.id = ex.id;
  await M.create(row, qo(ctx, R));
};

STEPS.foreignKey = async (ctx, R) => {
  const withBt = ctx.kinds.filter((k) => belongsTos(ctx, k).length);
  if (!withBt.length) return STEPS.create(ctx, R);
  const k = R.pick(withBt);
  const bt = R.pick(belongsTos(ctx, k));
  const M = mdl(ctx, k);
  const v = R.int(0, 2);
  if (v === 0) await M.create(Object.assign(makeRow(ctx, R, k), { [bt.foreignKey]: R.int(90000, 99999) }), qo(ctx, R));
  else if (v === 1) await M.update({ [bt.foreignKey]: R.int(90000, 99999) }, qo(ctx, R, { where: { id: someId(ctx, R, k) } }));
  else {
    // delete a parent that has children (RESTRICT / NO ACTION refuse it)
    const child = await M.findOne(qo(ctx, R, { where: { [bt.foreignKey]: { [Op.ne]: null } } }));
    const P = bt.target;
    const pid = child ? child[bt.foreignKey] : someId(ctx, R, P.name);
    if (pid === undefined || pid === null) return; // (minifyAliases with underscored names loses the attribute)
    await P.destroy(qo(ctx, R, { where: { id: pid }, force: true }));
  }
};

STEPS.deadlock = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const s = spec(k);
  if (ctx.poolMax < 2) return STEPS.txUnmanaged(ctx, R);
  let rows = await M.findAll(qo(ctx, R, { limit: 2, order: [['id', 'ASC']], attributes: ['id'] }));
  if (rows.length < 2) { remember(ctx, k, await M.bulkCreate([makeRow(ctx, R, k), makeRow(ctx, R, k)], qo(ctx, R))); rows = await M.findAll({ limit: 2, order: [['id', 'ASC']], attributes: ['id'], logging: false }); }
  if (rows.length < 2) return;
  const [a, b] = rows.map((r) => r.id);
  const t1 = await ctx.seq.transaction(txOptions(ctx, R));
  const t2 = await ctx.seq.transaction(txOptions(ctx, R));
  const mode = R.pick(['deadlock', 'deadlock', 'nowait', 'wait']);
  const res = [];
  try {
    await M.update({ [s.num]: 1 }, qo(ctx, R, { where: { id: a }, transaction: t1 }));
    if (mode === 'nowait') {
      // a lock the other transaction holds, refused at once
      await ctx.seq.query(`SELECT id FROM \`${M.getTableName()}\` WHERE id = ? FOR UPDATE NOWAIT`, qo(ctx, R, { replacements: [a], transaction: t2, type: QueryTypes.SELECT }))
        .then(() => res.push('ok'), (e) => res.push(e.name));
    } else if (mode === 'wait') {
      await ctx.seq.query('SET SESSION innodb_lock_wait_timeout = 1', qo(ctx, R, { transaction: t2 }));
      await M.update({ [s.num]: 2 }, qo(ctx, R, { where: { id: a }, transaction: t2 })).then(() => res.push('ok'), (e) => res.push(e.name));
    } else {
      await M.update({ [s.num]: 2 }, qo(ctx, R, { where: { id: b }, transaction: t2 }));
      const p1 = M.update({ [s.num]: 3 }, qo(ctx, R, { where: { id: b }, transaction: t1 })).then(() => 'ok', (e) => e.name);
      await sleep(25);
      const p2 = M.update({ [s.num]: 4 }, qo(ctx, R, { where: { id: a }, transaction: t2 })).then(() => 'ok', (e) => e.name);
      res.push(...await Promise.all([p1, p2]));
    }
  } finally {
    for (const t of [t1, t2]) {
      if (t.finished) continue;
      if (R.chance(0.5)) await t.commit().catch(() => {}); else await t.rollback().catch(() => {});
    }
  }
  ctx.trace.push(`${mode}:${res.join('/')}`);
};

STEPS.connLoss = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  if (R.chance(0.6)) {
    await M.count(qo(ctx, R));
    await ctx.server.kill(ctx.db);
    await sleep(15);
    for (let i = R.int(1, 3); i > 0; i--) await M.findAll(qo(ctx, R, { where: whereFor(ctx, R, k), limit: 3 })).catch((e) => { ctx.trace.push(e.name); noteError(ctx.ck, 'connLoss', e); });
  } else {
    // inside a transaction: the statement after the kill fails, then the commit or rollback
    const t = await ctx.seq.transaction(txOptions(ctx, R));
    await txOp(ctx, R, t);
    await ctx.server.kill(ctx.db);
    await sleep(15);
    await txOp(ctx, R, t).catch((e) => ctx.trace.push(e.name));
    if (R.chance(0.5)) await t.commit().catch((e) => ctx.trace.push(e.name));
    else await t.rollback().catch((e) => ctx.trace.push(e.name));
    await M.count(qo(ctx, R));
  }
};

STEPS.poolExhausted = async (ctx, R) => {
  if (ctx.poolMax !== 1 || ctx.acquire > 700) return STEPS.parallel(ctx, R);
  const k = kindOf(ctx, R);
  const t = await ctx.seq.transaction();
  try {
    await txOp(ctx, R, t);
    await mdl(ctx, k).count(qo(ctx, R)); // no transaction: waits for the only connection
  } finally {
    await t.rollback().catch(() => {});
  }
};

STEPS.parallel = async (ctx, R) => {
  const ops = [];
  for (let i = R.int(2, 5); i > 0; i--) {
    const k = kindOf(ctx, R);
    const M = mdl(ctx, k);
    ops.push(R.chance(0.5) ? M.findAll(qo(ctx, R, { where: whereFor(ctx, R, k), limit: 5 })) : M.count(qo(ctx, R)));
  }
  await Promise.all(ops);
};

STEPS.mixins = async (ctx, R) => {
  const as = ctx.assocs.filter((a) => ctx.ids[a.source.name].length);
  if (!as.length) return STEPS.create(ctx, R);
  const a = R.pick(as);
  const src = await a.source.findByPk(R.pick(ctx.ids[a.source.name]), qo(ctx, R));
  if (!src) return;
  const acc = a.accessors;
  const tk = a.target.name;
  const tid = () => someId(ctx, R, tk);
  const type = a.associationType;
  const v = R.int(0, 5);
  if (type === 'BelongsTo' || type === 'HasOne') {
    if (v < 2) await src[acc.get](qo(ctx, R));
    else if (v < 4) await src[acc.set](R.chance(0.8) ? tid() : null, qo(ctx, R));
    else remember(ctx, tk, await src[acc.create](makeRow(ctx, R, tk), qo(ctx, R)));
    return;
  }
  if (v === 0) await src[acc.get](qo(ctx, R, R.chance(0.4) ? { where: { [spec(tk).flag]: true }, limit: 5 } : {}));
  else if (v === 1) await src[acc.count](qo(ctx, R));
  else if (v === 2) await src[acc.hasSingle](tid(), qo(ctx, R));
  else if (v === 3) await src[R.chance(0.6) ? acc.add : acc.addMultiple](R.chance(0.6) ? tid() : [tid(), tid()], qo(ctx, R));
  else if (v === 4) await src[R.chance(0.5) ? acc.set : acc.remove](R.chance(0.5) ? [tid()] : tid(), qo(ctx, R));
  else remember(ctx, tk, await src[acc.create](makeRow(ctx, R, tk), qo(ctx, R)));
};

STEPS.scope = async (ctx, R) => {
  const ks = ctx.kinds.filter((k) => ctx.scopes[k].length);
  const k = ks.length ? R.pick(ks) : kindOf(ctx, R);
  const M = mdl(ctx, k);
  const sc = ctx.scopes[k].length && R.chance(0.8) ? R.pick(ctx.scopes[k]) : null;
  const S = sc === 'above' ? M.scope({ method: ['above', R.int(1, 50)] }) : sc ? M.scope(sc) : M.unscoped();
  if (R.chance(0.6)) await S.findAll(qo(ctx, R));
  else await S.count(qo(ctx, R));
};

STEPS.reload = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const inst = await mdl(ctx, k).findByPk(someId(ctx, R, k), qo(ctx, R));
  if (!inst) return;
  await ctx.seq.query(`UPDATE \`${mdl(ctx, k).getTableName()}\` SET \`${mdl(ctx, k).rawAttributes[spec(k).num].field}\` = ? WHERE id = ?`,
    qo(ctx, R, { replacements: [R.int(0, 9), inst.id] }));
  await inst.reload(qo(ctx, R, R.chance(0.3) ? { include: includeFor(ctx, R, k) } : {}));
  if (R.chance(0.5)) await inst.save(qo(ctx, R)); // nothing changed
};

STEPS.queryInterface = async (ctx, R) => {
  const qi = ctx.seq.getQueryInterface();
  const k = kindOf(ctx, R);
  const t = mdl(ctx, k).getTableName();
  const v = R.int(0, 7);
  const col = `extra_${R.int(1, 3)}`;
  if (v === 0) await qi.showAllTables(qo(ctx, R));
  else if (v === 1) await qi.describeTable(t, qo(ctx, R));
  else if (v === 2) await qi.addColumn(t, col, { type: R.pick([DT.STRING(20), DT.INTEGER, DT.BOOLEAN]), allowNull: true }, qo(ctx, R));
  else if (v === 3) await qi.removeColumn(t, col, qo(ctx, R));
  else if (v === 4) await qi.addIndex(t, [spec(k).num], qo(ctx, R, { name: `ix_${t}_${R.int(1, 3)}` }));
  else if (v === 5) await qi.removeIndex(t, `ix_${t}_${R.int(1, 3)}`, qo(ctx, R));
  else if (v === 6) await qi.showIndex(t, qo(ctx, R));
  else await qi.getForeignKeyReferencesForTable(t, qo(ctx, R));
};

STEPS.alterSync = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  const name = `added${R.int(1, 3)}`;
  if (!M.rawAttributes[name]) {
    M.rawAttributes[name] = { type: R.pick([DT.STRING(30), DT.INTEGER, DT.DATE]), allowNull: true };
    M.refreshAttributes();
  }
  if (R.chance(0.5)) await M.sync(qo(ctx, R, { alter: true }));
  else await ctx.seq.sync(qo(ctx, R, { alter: R.chance(0.93) }));
};

STEPS.truncate = async (ctx, R) => {
  const k = kindOf(ctx, R);
  const M = mdl(ctx, k);
  if (R.chance(0.6)) await M.destroy(qo(ctx, R, { truncate: true, cascade: R.chance(0.3), force: R.chance(0.3) }));
  else await M.truncate(qo(ctx, R));
  ctx.ids[k] = [];
};

STEPS.misuse = async (ctx, R) => {
  // attributes where options belong: sequelize warns
  const k = kindOf(ctx, R);
  await mdl(ctx, k).findAll(qo(ctx, R, { [spec(k).flag]: true, limit: 3 }));
};

STEPS.json = async (ctx, R) => {
  const withJson = [['User', 'settings', { theme: 'dark' }], ['Post', 'meta', { lang: 'en' }], ['Product', 'dims', { w: { [Op.gt]: 20 } }],
    ['Event', 'payload', { ok: true }]].filter(([k, f]) => ctx.kinds.includes(k) && ctx.has[k][f]);
  if (!withJson.length) return STEPS.findAll(ctx, R);
  const [k, f, w] = R.pick(withJson);
  await mdl(ctx, k).findAll(qo(ctx, R, { where: { [f]: w }, limit: 5 }));
};

const STEP_WEIGHTS = [
  ['create', 12], ['bulkCreate', 6], ['findAll', 12], ['findOne', 9], ['update', 7], ['destroy', 4], ['restore', 2],
  ['increment', 3], ['aggregate', 5], ['upsert', 2], ['raw', 5], ['missing', 2], ['txManaged', 5], ['txUnmanaged', 5],
  ['validation', 4], ['unique', 3], ['foreignKey', 3], ['deadlock', 1.5], ['connLoss', 1.5], ['poolExhausted', 0.5],
  ['parallel', 2], ['mixins', 6], ['scope', 2], ['reload', 2], ['queryInterface', 2], ['alterSync', 1], ['truncate', 0.7],
  ['misuse', 0.5], ['json', 1],
];
const TOTAL_WEIGHT = STEP_WEIGHTS.reduce((s, [, w]) => s + w, 0);
function pickStep(R) {
  let x = R.rand() * TOTAL_WEIGHT;
  for (const [n, w] of STEP_WEIGHTS) { x -= w; if (x < 0) return n; }
  return 'findAll';
}

// ---------------------------------------------------------------------------
// A case.
const DEBUG_SETS = [
  [0.45, 'sequelize:*'], [0.2, 'sequelize:sql:*'], [0.1, 'sequelize:pool,sequelize:connection:*'],
  [0.1, 'sequelize:sql:*,sequelize:hooks'], [0.15, ''],
];

function instanceOptions(ctx, R, server) {
  const o = { dialect: 'mysql', username: 'app', password: 'app-secret', database: ctx.db };
  if (R.chance(0.6)) o.dialectOptions = { socketPath: server.sock };
  else { o.host = '127.0.0.1'; o.port = server.port; }
  o.dialectOptions = Object.assign({}, o.dialectOptions);
  if (R.chance(0.2)) o.dialectOptions.decimalNumbers = true;
  if (R.chance(0.15)) { o.dialectOptions.supportBigNumbers = true; o.dialectOptions.bigNumberStrings = R.chance(0.5); }
  if (R.chance(0.2)) o.dialectOptions.connectTimeout = R.pick([2000, 5000]);
  // logging
  const lr = R.rand();
  if (lr < 0.7) o.logging = ctx.logFn;
  else if (lr < 0.85) { /* default: console.log */ } else o.logging = false;
  ctx.p = { quietQuery: R.pick([0, 0.03, 0.08]), benchQuery: R.pick([0, 0.05, 0.1]) };
  if (R.chance(0.25)) o.benchmark = true;
  if (R.chance(0.3)) o.logQueryParameters = true;
  if (R.chance(0.15)) o.showWarnings = true;
  // pool
  const max = R.pick([1, 2, 3, 5, 5, 10]);
  o.pool = { max, min: R.chance(0.3) ? Math.min(max, R.int(0, 2)) : 0, idle: R.pick([200, 1000, 10000]),
    acquire: max === 1 ? R.pick([300, 500, 3000]) : R.pick([2000, 5000]), evict: R.pick([100, 1000, 5000]) };
  if (R.chance(0.15)) o.pool.maxUses = R.int(3, 30);
  ctx.poolMax = max;
  ctx.acquire = o.pool.acquire;
  // defaults for models
  ctx.define = {};
  if (R.chance(0.3)) ctx.define.underscored = true;
  if (R.chance(0.2)) ctx.define.freezeTableName = true;
  if (R.chance(0.1)) ctx.define.timestamps = false;
  if (R.chance(0.2)) { ctx.define.charset = 'utf8mb4'; ctx.define.collate = R.pick(['utf8mb4_unicode_ci', 'utf8mb4_bin']); }
  o.define = ctx.define;
  if (R.chance(0.5)) o.timezone = R.pick(['+00:00', '+02:00', '-05:00', '+05:30', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo']);
  if (R.chance(0.25)) o.transactionType = R.pick(Object.values(Transaction.TYPES));
  if (R.chance(0.3)) o.isolationLevel = R.pick(Object.values(Transaction.ISOLATION_LEVELS));
  if (R.chance(0.2)) o.retry = { max: R.int(1, 3), match: [/Deadlock found/, /ER_LOCK_DEADLOCK/, 'SequelizeConnectionError'] };
  if (R.chance(0.15)) o.minifyAliases = true;
  if (R.chance(0.1)) o.omitNull = true;
  if (R.chance(0.1)) o.typeValidation = true;
  if (R.chance(0.12)) {
    const conn = o.dialectOptions.socketPath ? {} : { host: '127.0.0.1', port: server.port };
    o.replication = { read: [Object.assign({ username: 'reader', password: 'reader-secret' }, conn)],
      write: Object.assign({ username: 'app', password: 'app-secret' }, conn) };
  }
  // instance hooks
  o.hooks = {};
  if (R.chance(0.2)) o.hooks.beforeConnect = (cfg) => { cfg.charset = cfg.charset || 'utf8mb4'; };
  if (R.chance(0.2)) o.hooks.afterConnect = () => {};
  if (R.chance(0.1)) o.hooks.beforeDisconnect = () => {};
  if (R.chance(0.15)) o.hooks.beforeQuery = () => {};
  if (R.chance(0.1)) o.hooks.afterQuery = () => {};
  if (R.chance(0.1)) o.hooks.beforeDefine = () => {};
  if (R.chance(0.1)) o.hooks.afterDefine = () => {};
  if (R.chance(0.1)) o.hooks.beforeBulkSync = () => {};
  return o;
}

const stepErrors = new Map();
function noteError(ck, what, e) {
  const ek = `${what} ${(e && e.name) || 'Error'}: ${String(e && e.message).slice(0, 70)}`;
  stepErrors.set(ek, (stepErrors.get(ek) || 0) + 1);
  if (VERBOSE && !(e && /^Sequelize|^AggregateError$/.test(e.name)) &&
    !/business rule|inner step|refused by hook|cannot be destroyed|finished with state|connection manager was closed/.test(String(e && e.message))) {
    process.stderr.write(`${ck} ${what}: ${(e && e.stack) || e}\n`);
  }
}

async function caseBody(ctx, R, server) {
  const ck = ctx.ck;
  ctx.logFn = loggingFor(ck, 'logging');
  ctx.audit = loggingFor(ck, 'logging/audit');
  const opts = instanceOptions(ctx, R, server);
  ctx.kinds = pickKinds(R);

  if (R.chance(0.04)) {
    // the application starts with a wrong port, fails, then fixes its configuration
    const wrong = Object.assign({}, opts, { host: '127.0.0.1', port: await freePort(), dialectOptions: {}, replication: undefined });
    const bad = new Sequelize(wrong);
    await bad.authenticate().catch((e) => ctx.trace.push(e.name));
    await bad.close().catch(() => {});
  }
  const seq = new Sequelize(opts);
  ctx.seq = seq;
  defineModels(ctx, R);
  if (R.chance(0.1)) {
    const quiet = R.pick(ctx.kinds);
    const hush = (o) => { if (o && typeof o === 'object') o.logging = false; };
    for (const h of ['beforeFind', 'beforeCount', 'beforeBulkUpdate', 'beforeBulkDestroy']) mdl(ctx, quiet).addHook(h, hush);
    mdl(ctx, quiet).addHook('beforeCreate', (inst, o) => hush(o));
  }
  if (R.chance(0.3)) await seq.authenticate(R.chance(0.3) ? { logging: false } : undefined);
  const sv = R.rand();
  if (sv < 0.4) await seq.sync({ force: true });
  else if (sv < 0.65) await seq.sync();
  else if (sv < 0.8) await seq.sync({ alter: true });
  else if (sv < 0.9) await seq.sync({ force: true, logging: false });
  else { for (const k of ctx.kinds) await mdl(ctx, k).sync(); await seq.sync(); }
  if (R.chance(0.12)) await seq.sync({ alter: true });
  ctx.trace.push(`sync:${sv.toFixed(2)}`);
  // seed rows
  for (const k of ctx.kinds) {
    if (!R.chance(0.7)) continue;
    try {
      remember(ctx, k, await mdl(ctx, k).bulkCreate(Array.from({ length: R.int(2, 8) }, () => makeRow(ctx, R, k)), qo(ctx, R)));
    } catch (e) { noteError(ck, `seed ${k}`, e); }
  }
  const n = R.int(5, 40);
  for (let i = 0; i < n; i++) {
    const s = pickStep(R);
    ctx.trace.push(s);
    try {
      await STEPS[s](ctx, R);
    } catch (e) {
      noteError(ck, s, e);
    }
  }
  const end = R.rand();
  if (end < 0.05) await seq.drop().catch((e) => noteError(ck, 'drop', e));
  if (end < 0.93) {
    await seq.close();
    if (end > 0.85) await mdl(ctx, ctx.kinds[0]).count().catch((e) => noteError(ck, 'after close', e));
  }
}

async function runCase(i, server) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const ctx = { ck, db: `seq_${ck}`, server, models: {}, has: {}, ids: {}, scopes: {}, paranoid: {}, versioned: {},
    uniqueStr: {}, assocs: [], throughs: [], n: 0, trace: [] };
  const t0 = Date.now();
  await server.admin.query(`CREATE DATABASE \`${ctx.db}\``);
  // which debug namespaces the case turns on
  let x = R.rand(), ns = '';
  for (const [p, v] of DEBUG_SETS) { if (x < p) { ns = v; break; } x -= p; }
  createDebug.enable(ns);
  delete process.env.DEBUG;
  log.caseId = ck;
  let timer;
  try {
    await Promise.race([caseBody(ctx, R, server),
      new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('case timeout')), 30000); })]);
  } catch (e) {
    noteError(ck, 'case', e);
  } finally {
    clearTimeout(timer);
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${ctx.kinds && ctx.kinds.join(',')} ${Date.now() - t0}ms ${log._rows.length} events ${ctx.trace.join(' ')}\n`);
  log.endCase();
  // leftovers of the case (a timed-out case, an instance left open) go silently
  createDebug.enable('');
  delete process.env.DEBUG;
  await server.kill(ctx.db).catch(() => {});
  if (ctx.seq) await Promise.race([ctx.seq.close().catch(() => {}), sleep(2000)]);
  await server.admin.query(`DROP DATABASE IF EXISTS \`${ctx.db}\``);
}

async function main() {
  const server = new MariaDB('sequelize', { lockWaitTimeout: 3 });
  process.on('exit', () => server.stop());
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { server.stop(); process.exit(130); });
  const t0 = Date.now();
  await server.start(mysql);
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i, server);
  await log.finish();
  if (VERBOSE) for (const [k, v] of [...stepErrors].sort((a, b) => b[1] - a[1])) process.stderr.write(`${v} ${k}\n`);
  server.stop();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    ` (${foreign} records of earlier cases dropped, ${stray} console prints from outside sequelize)\n`);
  process.exit(0);
}

process.on('unhandledRejection', () => {});
main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); process.exit(1); });
