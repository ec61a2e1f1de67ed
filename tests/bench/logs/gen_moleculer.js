#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `moleculer` 0.14.35 (a microservices framework; plain
 * JavaScript), run in this process.
 *
 *   node gen_moleculer.js --repo                 # prints the directory to index
 *   node gen_moleculer.js --out LOG.csv.gz [--cases 400] [--seed 1] [--deps DIR]
 *
 * Indexed directory: <deps>/node_modules/moleculer/src (truth paths
 * `src/transit.js`, `src/registry/node-catalog.js`...), the transporters,
 * cachers, serializers and exporters that need servers or packages not
 * installed included, never run.
 *
 * Logging: every module holds a child logger of the broker's logger factory,
 * `this.logger = broker.getLogger("transit")`, whose per-level functions
 * (made in `logger-factory.js`) hand the raw argument list to each appender;
 * a service's logger is named after the service (`this.logger` in its
 * handlers).  Messages are template literals, often followed by more
 * arguments (an Error, an object of fields, an array); the console appender
 * prints them space-joined, objects through util.inspect.  Some modules keep
 * a level function in a variable (`logFn = logger[opts.logLevel]` in the
 * debugging middlewares) or reach the broker's logger from elsewhere
 * (`broker.logger.warn(...)`, `ctx.broker.logger.error(err)`).
 *
 * Capture: each broker of a case gets an appender of its own, a subclass of
 * moleculer's `BaseLogger` (what the `logger` option accepts as a custom
 * logger), made with the case's id and a level drawn per broker (a string,
 * or an object of per-module levels).  Its log handler records each call the
 * level lets through as the console appender would print the message: the
 * arguments after the prefix, objects and arrays rendered by util.inspect
 * (depth 2, one line, no colours, as moleculer's formatter does), the rest as
 * console.log renders them, joined by a space.  level = moleculer's level
 * upper-cased (FATAL ... TRACE; moleculer itself logs nothing at trace),
 * logger = `nodeID/MODULE` as the console appender prints it
 * (`node-2/TRANSIT`, `node-1/V2.MATH`).  A record is kept only while its
 * appender's case is the open one: records made after a case ended (a
 * debounced registry update, a late timer of a stopped broker) are dropped
 * and counted in the summary line.  Frames of `logger-factory.js` and
 * `src/loggers/` are machinery.
 * Emitter: the first frame below them, in moleculer's own code.  Declared
 * wrappers: `log(...args)` of the tracing Console exporter
 * (`tracing/exporters/console.js`) and of the metrics Console reporter
 * (`metrics/reporters/console.js`), whose bodies only hand their caller's
 * arguments to `this.logger.info` (or to a `logger` function from the
 * options); their callers (`drawTableTop`, `printSpanTime`, `print`...) are
 * the emitters.  `ServiceBroker.fatal` is not one (it also ends the process)
 * and is never reached.  Records of the generator's own services (outside
 * the indexed directory) would be dropped; they log nothing.
 *
 * A case is one lifetime of one to three brokers (`node-1`...) in a namespace
 * of their own, joined by moleculer's in-process `Fake` transporter (one
 * broker alone has none; all share the transporter module's global event
 * bus, the namespace keeps cases apart), with options drawn per case and
 * broker: log level, load-balancing strategy (RoundRobin, Random, CpuUsage,
 * Latency, Shard), `Memory` or `MemoryLRU` cacher (TTL, clone, lock) or
 * none, circuit breaker, retry policy, bulkhead, request timeout, context
 * tracking with a short shutdown timeout, validator on or off, call-level
 * limit, balancer disabled, the JSON serializer (the others need packages
 * not installed), transmit compression or encryption (now and then on one
 * broker only, so its peers cannot read it), the ActionLogger and
 * TransitLogger debugging middlewares, an error handler, metrics with the
 * Event and Console reporters and tracing with the Event and Console
 * exporters (all writing only to the logger or to the case's own events).
 * Services: `math` (validated, cached, hooked, versioned or not, on one or
 * two brokers), `greeter` (calls math, emits events, streams, recursion),
 * `users` (event handlers in groups, one failing, fallbacks) and services
 * the script adds; lifecycle handlers that fail, mixins, dependencies that
 * arrive late or never, services loaded from files in a temp folder (one
 * that fails to load).  Then a script of 5-20 steps: calls (local, remote,
 * direct to a node, unknown actions and nodes, timeouts, retries, fallback
 * responses, streams, mcall), emit / broadcast / broadcastLocal with groups,
 * service creation and destruction, waitForServices, pings, `$node` actions,
 * cache cleaning, a node that leaves (DISCONNECT packet, marked
 * disconnected, restarted, or silent until its peers miss its heartbeat),
 * and packets a misbehaving peer puts on the bus (garbage, a wrong protocol
 * version, orphan responses, requests and events from an unknown node, a
 * phantom node's INFO).  Then every broker stops.  Two things a stopped
 * broker leaves running are ended by the generator: the metric reporters'
 * interval timers (moleculer's stop() does not clear them) and the pending
 * debounced announcement of local services.  That announcement (INFO to
 * the peers, a second after a local service changes) is run early, while
 * the brokers start, in most cases, so that remote dependencies and calls
 * resolve without waiting a second; the other cases wait as moleculer does.
 *
 * Determinism: each case draws from its own generator (`<seed>-<i>`);
 * Math.random (moleculer's Random strategy, lodash) and the broker's uid
 * generator (context, request and span ids) are seeded per case too.  Timer
 * races (timeouts, heartbeats, debounced registry updates) still vary a
 * little from run to run.  Debugging aids: PMRAG_TIMING=1 prints one line
 * per case to stderr; PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const util = require('util');
const { Readable } = require('stream');
const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'moleculer', 400);
const NM = path.join(args.deps, 'node_modules');
const PKG = path.join(NM, 'moleculer');
const INDEX_DIR = path.join(PKG, 'src');
if (!fs.existsSync(path.join(PKG, 'package.json'))) {
  process.stderr.write(`missing ${PKG}: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_moleculer.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// Math.random, read by moleculer's Random strategy and by lodash (which
// keeps a reference taken when it loads), must be seeded per case: replace
// it before moleculer is required, by a function reading the case's PRNG.
let mathRandom = cap.seededRandom(`${args.seed}-load`);
Math.random = function seededMathRandom() { return mathRandom(); };

const { dir: TMP, cleanup } = require('./_capture').tempDir('moleculer');

const log = new cap.EventLog(args.out, {
  indexDir: INDEX_DIR,
  wrappers: [['src/tracing/exporters/console.js', 'log'], ['src/metrics/reporters/console.js', 'log']],
  machinery: [path.join(INDEX_DIR, 'logger-factory.js'), path.join(INDEX_DIR, 'loggers')],
});

const M = require(PKG);
const BaseLogger = require(path.join(INDEX_DIR, 'loggers', 'base.js'));
const { isObject } = require(path.join(INDEX_DIR, 'utils.js'));
// moleculer's colour module: off, so the texts the debugging middlewares and
// the console exporters build carry no escapes whatever the terminal
require(path.join(NM, 'kleur')).enabled = false;
const { MoleculerError, MoleculerRetryableError, MoleculerClientError } = M.Errors;

const LEVELS = BaseLogger.LEVELS;
let dropped = 0;

// The console appender prints `[time] LEVEL node/MOD: ` then the arguments
// through console.log, objects and arrays already turned into strings by
// its objectPrinter; what follows the prefix is rendered here the same way.
function inspectArg(p) {
  return util.inspect(p, { showHidden: false, depth: 2, colors: false, breakLength: Number.POSITIVE_INFINITY });
}
function render(largs) {
  const printed = largs.map((p) => (isObject(p) || Array.isArray(p) ? inspectArg(p) : p));
  const s = util.format('>', ...printed);
  return s.length > 2 ? s.slice(2) : '';
}

class CaseLogger extends BaseLogger {
  getLogHandler(bindings) {
    const level = bindings ? this.getLogLevel(bindings.mod) : null;
    if (!level) return null;
    const max = LEVELS.indexOf(level);
    const name = `${bindings.nodeID}/${String(bindings.mod || '').toUpperCase()}`;
    const caseId = this.opts.caseId;
    return function capturedLog(type, largs) {
      if (LEVELS.indexOf(type) > max) return;
      if (log.caseId !== caseId) { dropped++; return; }
      let msg;
      try { msg = render(largs); } catch (e) { msg = String(largs[0]); }
      log.record(msg, type.toUpperCase(), name, capturedLog);
    };
  }
}

process.on('unhandledRejection', () => {});
let escaped = 0;
process.on('uncaughtException', (e) => {
  escaped++;
  if (escaped < 5) process.stderr.write(`uncaught: ${String((e && e.stack) || e).split('\n').slice(0, 3).join(' | ')}\n`);
});
// moleculer's broker.fatal() ends the process (a nodeID clash, a serializer
// package missing).  The cases are drawn so as never to get there; should
// one still, the exit is refused (the throw reaches moleculer's caller) and
// counted in the summary line rather than ending the run.
const realExit = process.exit.bind(process);
let exitsRefused = 0;
process.exit = (code) => {
  if (log.caseId === null) realExit(code);
  exitsRefused++;
  throw new Error(`process.exit(${code}) inside case ${log.caseId}`);
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// waits for what fn starts, at most ms; its errors (thrown or rejected) are
// the case's business, not the generator's
function within(fn, ms) {
  let p;
  try { p = Promise.resolve(fn()).catch(() => {}); } catch (e) { p = Promise.resolve(); }
  return Promise.race([p, sleep(ms)]);
}

// ---------------------------------------------------------------------------
// Service files for loadServices/loadService: a schema, a factory function
// and one that throws when required.
const SVC_DIR = path.join(TMP, 'services');
fs.mkdirSync(path.join(SVC_DIR, 'nested'), { recursive: true });
fs.writeFileSync(path.join(SVC_DIR, 'calc.service.js'),
  "module.exports = { name: 'calc', actions: { mul(ctx) { return (ctx.params.a || 0) * (ctx.params.b || 0); } } };\n");
fs.writeFileSync(path.join(SVC_DIR, 'nested', 'clock.service.js'),
  "module.exports = function (broker) { return { name: 'clock', actions: { now() { return 0; } }, events: { 'clock.tick'() {} } }; };\n");
fs.writeFileSync(path.join(SVC_DIR, 'broken.js'), "throw new Error('broken service file');\n");

// ---------------------------------------------------------------------------
function streamOf(R, n) {
  const chunks = [];
  for (let k = 0; k < n; k++) chunks.push(Buffer.from(`chunk-${k}-`.repeat(R.int(1, 40))));
  return Readable.from(chunks, { objectMode: false });
}

function drain(s) {
  return new Promise((resolve) => {
    if (!s || typeof s.on !== 'function') { resolve(0); return; }
    let n = 0;
    s.on('data', (c) => { n += c.length; });
    s.on('end', () => resolve(n));
    s.on('error', () => resolve(n));
  });
}

function hexId(rand) {
  let s = '';
  for (let k = 0; k < 32; k++) s += Math.floor(rand() * 16).toString(16);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20)}`;
}

// options of one broker of the case
function brokerOptions(R, c, b) {
  const o = {
    namespace: c.ns,
    nodeID: `node-${b + 1}`,
    logger: new CaseLogger({ caseId: c.id, level: c.level(b) }),
    transporter: c.n > 1 ? 'Fake' : null,
    serializer: 'JSON',
    requestTimeout: c.requestTimeout,
    retryPolicy: c.retry,
    circuitBreaker: c.breaker,
    bulkhead: c.bulkhead,
    tracking: c.tracking,
    cacher: c.cacher,
    validator: c.validator,
    registry: { strategy: c.strategy, strategyOptions: c.strategyOptions, preferLocal: c.preferLocal, stopDelay: R.pick([0, 10, 30]) },
    transit: { maxChunkSize: c.chunk, disableReconnect: true },
    heartbeatInterval: c.hbInterval,
    heartbeatTimeout: c.hbTimeout,
    dependencyInterval: R.pick([40, 80, 150]),
    dependencyTimeout: c.depTimeout,
    disableBalancer: c.disableBalancer,
    contextParamsCloning: R.chance(0.2),
    maxCallLevel: c.maxCallLevel,
    metrics: c.metrics ? c.metrics(b) : false,
    tracing: c.tracing ? c.tracing(b) : false,
    internalServices: R.chance(0.9),
    hotReload: false,
    skipProcessEventRegistration: true,
    uidGenerator: () => hexId(c.uidRandom),
    middlewares: c.middlewares(b),
  };
  if (c.errorHandler) {
    // an application's global handler: it swallows some errors and passes
    // the others on
    o.errorHandler = function caseErrorHandler(err, info) {
      if (info && info.event && err && /swallow/.test(err.message)) return null;
      throw err;
    };
  }
  return o;
}

function drawCase(R, i) {
  const c = { id: `c${String(i).padStart(5, '0')}`, ns: `case${i}`, n: R.pick([1, 1, 2, 2, 2, 3, 3]) };
  const level = () => {
    const roll = R.rand();
    if (roll < 0.6) return 'debug';
    if (roll < 0.7) return 'trace';
    if (roll < 0.8) return 'info';
    // per-module levels, moleculer's own matching (`**` the default)
    const lv = { '**': R.pick(['debug', 'info', 'warn']) };
    for (const m of R.sample(['BROKER', 'TRANSIT', 'REGISTRY', 'CACHER', 'TRANSPORTER', 'MATH', 'V2.MATH', 'GREETER', 'USERS',
      'TRACER', 'METRICS', 'CIRCUIT-BREAKER', 'DEBUG', 'DISCOVERY', 'TX-COMPRESS', '*.MATH'], R.int(1, 5))) {
      lv[m] = R.pick(['debug', 'info', 'warn', 'error']);
    }
    return lv;
  };
  const levels = [];
  for (let b = 0; b < c.n; b++) levels.push(level());
  c.level = (b) => levels[b];
  c.requestTimeout = R.pick([0, 0, 150, 400, 1000]);
  c.retry = { enabled: R.chance(0.35), retries: R.int(1, 3), delay: R.pick([5, 20]), maxDelay: 60, factor: 2 };
  c.breaker = { enabled: R.chance(0.35), threshold: R.pick([0.2, 0.5]), minRequestCount: R.int(1, 3),
    windowTime: R.pick([1, 2, 60]), halfOpenTime: R.pick([50, 150, 400]) };
  c.bulkhead = { enabled: R.chance(0.25), concurrency: R.int(1, 3), maxQueueSize: R.int(0, 4) };
  c.tracking = { enabled: R.chance(0.3), shutdownTimeout: R.pick([50, 200, 600]) };
  const cacher = R.pick([null, null, 'Memory', 'MemoryLRU', 'mem-opts', 'lru-opts']);
  if (cacher === 'mem-opts') {
    c.cacher = { type: 'Memory', options: { ttl: R.pick([0, 1]), clone: R.chance(0.5), maxParamsLength: R.pick([null, 20]),
      lock: R.chance(0.3) ? { enabled: true } : undefined } };
  } else if (cacher === 'lru-opts') {
    c.cacher = { type: 'MemoryLRU', options: { max: R.int(2, 10), ttl: R.pick([0, 1]),
      lock: R.chance(0.3) ? { enabled: true, staleTime: R.pick([undefined, 1]) } : undefined } };
  } else c.cacher = cacher;
  c.validator = R.chance(0.8);
  c.strategy = R.pick(['RoundRobin', 'RoundRobin', 'Random', 'CpuUsage', 'Latency', 'Shard']);
  c.strategyOptions = c.strategy === 'Shard' ? { shardKey: R.pick(['a', '#user', 'missing']) }
    : c.strategy === 'Latency' ? { sampleCount: 3, lowLatency: 5, collectCount: 2, pingInterval: 1 } : {};
  c.preferLocal = R.chance(0.7);
  c.chunk = R.pick([64, 256, 4096, 256 * 1024]);
  c.silentNode = c.n > 1 && R.chance(0.04);
  c.hbInterval = c.silentNode ? 1 : R.pick([1, 5, 10]);
  c.hbTimeout = c.silentNode ? 1 : 30;
  c.depTimeout = R.pick([150, 300, 500]);
  c.disableBalancer = R.chance(0.15);
  c.maxCallLevel = R.pick([0, 0, 3, 5]);
  c.errorHandler = R.chance(0.25);
  c.uidRandom = cap.seededRandom(`${args.seed}-${i}-uid`);
  if (R.chance(0.35)) {
    const reporters = R.sample([
      { type: 'Event', options: { interval: R.pick([0.1, 0.3]), onlyChanges: R.chance(0.5), broadcast: R.chance(0.5),
        includes: ['moleculer.request.**'] } },
      { type: 'Console', options: { interval: R.pick([0.2, 0.4]), colors: false, onlyChanges: R.chance(0.7),
        includes: R.pick([['moleculer.request.total', 'moleculer.request.error.total'], ['moleculer.event.**'],
          ['moleculer.request.time', 'moleculer.request.active']]) } },
      'Event'], R.int(0, 2));
    const on = R.int(0, c.n - 1);
    // each broker its own copy: moleculer fills defaults into the options
    c.metrics = (b) => ({ enabled: b === on || R.chance(0.3), reporter: JSON.parse(JSON.stringify(reporters)) });
  }
  if (R.chance(0.35)) {
    const exporters = R.sample([
      { type: 'Event', options: { interval: R.pick([0, 0.1, 0.3]), sendStartSpan: R.chance(0.5), broadcast: R.chance(0.5) } },
      { type: 'Console', options: { colors: false, width: R.pick([60, 100]), gaugeWidth: R.pick([10, 30]) } },
      'Event'], R.int(0, 2));
    const sampling = R.pick([{ rate: 1 }, { rate: 0.5 }, { tracesPerSecond: 2 }]);
    const on = R.int(0, c.n - 1);
    c.tracing = (b) => ({ enabled: b === on || R.chance(0.6), exporter: JSON.parse(JSON.stringify(exporters)),
      sampling: Object.assign({}, sampling), events: R.chance(0.5), stackTrace: R.chance(0.3) });
  }
  const key = Buffer.from('0123456789abcdef0123456789abcdef');
  const iv = Buffer.from('fedcba9876543210');
  const transmit = R.pick([null, null, null, 'compress', 'encrypt']);
  const transmitOn = R.chance(0.2) ? R.int(0, c.n - 1) : -1; // -1: every broker
  const compress = { method: R.pick(['deflate', 'gzip', 'deflateRaw']), threshold: R.pick([0, 100, '1kb']) };
  const actionLog = R.chance(0.2) ? { logLevel: R.pick(['info', 'debug', 'warn']), logParams: R.chance(0.5),
    logResponse: R.chance(0.5), logMeta: R.chance(0.3), whitelist: R.pick([['**'], ['math.*'], ['greeter.**', '$node.*']]) } : null;
  const transitLog = R.chance(0.15) ? { logLevel: R.pick(['info', 'debug']), logPacketData: R.chance(0.3),
    packetFilter: R.pick([['HEARTBEAT'], ['HEARTBEAT', 'INFO', 'DISCOVER'], []]) } : null;
  const logHooks = R.chance(0.15);
  c.middlewares = (b) => {
    const mws = [];
    if (transmit && (transmitOn < 0 || transmitOn === b) && c.n > 1) {
      mws.push(transmit === 'compress' ? M.Middlewares.Transmit.Compression(compress)
        : M.Middlewares.Transmit.Encryption(key, 'aes-256-cbc', iv));
    }
    if (actionLog && R.chance(0.8)) mws.push(M.Middlewares.Debugging.ActionLogger(Object.assign({}, actionLog)));
    if (transitLog && R.chance(0.8)) mws.push(M.Middlewares.Debugging.TransitLogger(Object.assign({}, transitLog)));
    if (logHooks) {
      // an application middleware that sees every log entry (the logger
      // factory calls it before the appenders)
      mws.push({ name: 'LogWatch', newLogEntry() { /* counts nothing */ } });
    }
    return mws;
  };
  return c;
}

// ---------------------------------------------------------------------------
// Service schemas.  Handlers decide by counters and the case's draws only.
// moleculer's mixin merge reads every key a schema has, so options not
// drawn are left out rather than set to undefined.
function compact(o) {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function mathSchema(R, c, version, extra) {
  let flakyCount = 0;
  const failEvery = R.int(1, 3);
  const mixin = {
    settings: { mixed: true },
    created: [function mixCreated() {}],
    actions: { ping() { return 'pong'; } },
    methods: { fallbackSum() { return -1; } },
  };
  const hooks = R.chance(0.4) ? {
    before: { '*': [function beforeAll(ctx) { ctx.meta.seen = true; }], add: R.chance(0.5) ? 'checkAdd' : function beforeAdd() {} },
    after: { '*': function afterAll(ctx, res) { return res; } },
    error: R.chance(0.5) ? { div: function divError(ctx, err) { if (ctx.params.a === 3) return 0; throw err; } } : {},
  } : undefined;
  const schema = {
    name: 'math',
    version,
    mixins: R.chance(0.5) ? [mixin] : [],
    settings: { $noVersionPrefix: R.chance(0.2) },
    hooks,
    actions: {
      add: {
        params: { a: 'number', b: 'number' },
        cache: R.pick([true, { keys: ['a', 'b'], ttl: 1 }, false]),
        handler(ctx) { return ctx.params.a + ctx.params.b; },
      },
      div: {
        params: R.chance(0.5) ? { a: 'number', b: { type: 'number', convert: true } } : undefined,
        handler(ctx) {
          if (!ctx.params.b) throw new MoleculerClientError('Divide by zero', 422, 'DIV_ZERO', { a: ctx.params.a });
          return ctx.params.a / ctx.params.b;
        },
      },
      flaky: {
        retryPolicy: R.chance(0.3) ? { enabled: true, retries: 2, delay: 5 } : undefined,
        handler() {
          flakyCount++;
          if (flakyCount % (failEvery + 1) !== 0) throw new MoleculerRetryableError('flaky failed', 503, 'FLAKY');
          return 'ok';
        },
      },
      slow: {
        timeout: R.pick([0, 80, 300]),
        async handler(ctx) { await sleep(ctx.params.ms || 30); return 'late'; },
      },
      crash() { throw new TypeError('crashed while adding'); },
      guarded: {
        fallback: R.pick(['fallbackSum', (ctx, err) => `fallback for ${err.message}`]),
        handler() { throw new MoleculerError('guarded failure', 500, 'GUARDED'); },
      },
      stream: {
        async handler(ctx) {
          const n = await drain(ctx.params);
          if (ctx.meta.echo) return streamOf(R, 1 + (n % 4));
          return n;
        },
      },
      spans: {
        async handler(ctx) {
          const span = ctx.startSpan ? ctx.startSpan('inner work', { tags: { a: 1 } }) : null;
          if (span) span.log('halfway', { step: 1 });
          await sleep(2);
          if (span) ctx.finishSpan(span);
          // a span the context did not open: moleculer warns
          if (ctx.broker.tracer && ctx.broker.tracer.isEnabled() && ctx.params.foreign) {
            const other = ctx.broker.tracer.startSpan('foreign');
            ctx.finishSpan(other);
          }
          return 'spanned';
        },
      },
    },
    events: {
      'user.created': { group: R.pick(['math', 'stats']), handler() {} },
      'bad.event'() { throw new Error('math event handler failed'); },
      'math.*'() {},
    },
    methods: {
      checkAdd(ctx) { if (ctx.params.a === 99) throw new MoleculerClientError('a may not be 99', 400); },
      fallbackSum() { return -1; },
    },
  };
  if (extra) Object.assign(schema, extra);
  return compact(schema);
}

function greeterSchema(R, c) {
  const deps = R.pick([[], [], [], ['math'], [{ name: 'math', version: 2 }], ['math', 'users'], ['ghost']]);
  const failStart = R.chance(0.08);
  const failStop = R.chance(0.15);
  return {
    name: 'greeter',
    dependencies: deps,
    settings: R.chance(0.3) ? { $dependencyTimeout: 250 } : {},
    actions: {
      hello: {
        params: c.validator ? { name: { type: 'string', optional: true } } : undefined,
        async handler(ctx) {
          const s = await ctx.call('math.add', { a: 1, b: 2 });
          ctx.emit('user.created', { id: s });
          return `hi ${ctx.params.name || s}`;
        },
      },
      chain: {
        // recursion a few levels deep: past the case's maxCallLevel it fails
        async handler(ctx) {
          const d = ctx.params.d || 0;
          return d >= 5 ? 'bottom' : ctx.call('greeter.chain', { d: d + 1 }, { timeout: 300 });
        },
      },
      missing: { handler(ctx) { return ctx.call('nosuch.action'); } },
      fanout: {
        async handler(ctx) {
          return ctx.mcall({ a: { action: 'math.add', params: { a: 2, b: 2 } }, b: { action: 'math.div', params: { a: 1, b: 0 } } },
            { settled: true });
        },
      },
      upload: {
        async handler(ctx) {
          const res = await ctx.call('math.stream', streamOf(R, ctx.params.n || 3), { meta: { echo: !!ctx.params.echo } });
          return typeof res === 'number' ? res : drain(res);
        },
      },
    },
    events: {
      'user.*': { group: 'greeter', handler() {} },
      '$node.disconnected'() {},
    },
    async started() { if (failStart) throw new Error('greeter could not start'); },
    async stopped() { if (failStop) throw new Error('greeter could not stop cleanly'); },
  };
}

function usersSchema(R) {
  return compact({
    name: 'users',
    actions: {
      get: { cache: { keys: ['id'] }, params: { id: 'number' }, handler(ctx) { return { id: ctx.params.id, name: `u${ctx.params.id}` }; } },
      risky: {
        fallback: 'fallbackUser',
        handler(ctx) { if (ctx.params.ok) return 'fine'; throw new MoleculerError('users backend down', 503); },
      },
      busy: { async handler(ctx) { await sleep(ctx.params.ms || 60); return 'done'; } },
    },
    events: {
      'user.created': { group: 'users', handler() {} },
      'user.removed': {
        group: R.pick(['users', 'audit']),
        handler(ctx) { if (ctx.params && ctx.params.fail) throw new Error(R.pick(['user removal failed', 'swallow this'])); },
      },
      '$broker.started'() {},
    },
    methods: { fallbackUser() { return { id: 0, name: 'nobody' }; } },
    created: R.chance(0.1) ? [function a() {}, function b() {}] : undefined,
  });
}

// ---------------------------------------------------------------------------
// Raw packets a misbehaving peer puts on the Fake transporter's bus.
function rawPacket(R, c, brokers) {
  const target = R.pick(brokers).nodeID;
  const pre = `MOL-${c.ns}`;
  const bus = global.bus;
  const send = (topic, obj) => bus.emit(topic, Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj)));
  const kind = R.pick(['garbage', 'version', 'orphan', 'request', 'event', 'phantom', 'nopayload', 'selfreq']);
  const ver = '4';
  switch (kind) {
    case 'garbage':
      send(`${pre}.${R.pick(['REQ', 'EVENT', 'RES', 'INFO'])}.${target}`, R.pick(['{"ver": "4", "sender": ', 'not json', '[1,2']));
      break;
    case 'version':
      send(`${pre}.INFO`, { ver: '3', sender: 'old-node', services: [] });
      break;
    case 'orphan':
      send(`${pre}.RES.${target}`, { ver, sender: 'ghost', id: `orphan-${R.int(1, 99)}`, success: true, data: 1, meta: {} });
      break;
    case 'request':
      send(`${pre}.REQ.${target}`, { ver, sender: 'ghost', id: `req-${R.int(1, 99)}`, action: R.pick(['math.add', 'greeter.hello', 'nosuch.act', 'users.get']),
        params: { a: 1, b: 2, id: 1 }, meta: {}, timeout: 200, level: 1, tracing: null, parentID: null,
        requestID: R.chance(0.5) ? `rq-${R.int(1, 9)}` : null, caller: null, stream: false });
      break;
    case 'event':
      send(`${pre}.EVENT.${target}`, { ver, sender: 'ghost', id: `ev-${R.int(1, 99)}`, event: R.pick(['user.created', 'user.removed', 'nobody.cares']),
        data: { fail: R.chance(0.5) }, groups: R.chance(0.5) ? ['users'] : null, broadcast: R.chance(0.5), meta: {}, level: 1,
        tracing: null, parentID: null, requestID: null, caller: null, needAck: null });
      break;
    case 'phantom': {
      // a node that announces a service, answers nothing and leaves later
      send(`${pre}.INFO`, { ver, sender: 'phantom', instanceID: 'phantom-1', seq: 1, hostname: 'phantom', ipList: ['127.0.0.1'],
        client: { type: 'nodejs', version: '0.14.35', langVersion: process.version }, config: {}, metadata: {},
        services: [{ name: 'phantom', fullName: 'phantom', settings: {}, metadata: {},
          actions: { 'phantom.work': { name: 'phantom.work', rawName: 'work' } },
          events: { 'user.created': { name: 'user.created', group: 'phantom' } } }] });
      c.phantom = true;
      break;
    }
    case 'nopayload':
      send(`${pre}.${R.pick(['HEARTBEAT', 'PING', 'DISCONNECT'])}`, 'null');
      break;
    case 'selfreq':
      send(`${pre}.PING.${target}`, { ver, sender: 'ghost', time: 1, id: 'p1' });
      break;
    default:
  }
}

// ---------------------------------------------------------------------------
async function step(R, c, brokers, s) {
  const live = brokers.filter((b) => !b.__stopped);
  if (!live.length) return;
  const b = R.pick(live);
  const op = R.pick(['call', 'call', 'call', 'call', 'call', 'call', 'callnode', 'mcall', 'stream', 'emit', 'emit', 'broadcast',
    'local', 'create', 'create', 'destroy', 'wait', 'ping', 'node', 'cache', 'raw', 'raw', 'leave', 'load', 'spans']);
  switch (op) {
    case 'call': {
      const [act, params] = R.pick([
        ['math.add', { a: R.int(0, 3), b: R.int(0, 3) }], ['math.add', { a: 'x' }], ['math.add', { a: 99, b: 1 }],
        ['math.div', { a: R.int(1, 4), b: R.int(0, 2) }], ['math.div', { a: 3, b: 0 }],
        ['math.flaky', {}], ['math.slow', { ms: R.pick([10, 120, 500]) }], ['math.crash', {}], ['math.crash', {}],
        ['math.guarded', {}], ['math.ping', {}], ['v2.math.add', { a: 1, b: 1 }], ['greeter.hello', { name: R.pick(['ann', 5]) }],
        ['greeter.missing', {}], ['greeter.chain', {}], ['greeter.fanout', {}], ['nosuch.action', {}], ['users.get', { id: R.int(1, 3) }],
        ['users.risky', { ok: R.chance(0.3) }], ['users.busy', { ms: R.pick([20, 200]) }], ['phantom.work', {}],
        ['calc.mul', { a: 2, b: 3 }], [`tmp${R.int(0, 19)}.x`, {}],
      ]);
      const opts = {};
      if (R.chance(0.2)) opts.timeout = R.pick([50, 100, 300]);
      if (R.chance(0.15)) opts.retries = R.int(1, 2);
      if (R.chance(0.15)) opts.fallbackResponse = R.pick(['fallback-value', (ctx, err) => `fb ${err.code}`]);
      if (R.chance(0.1)) opts.meta = { user: R.pick(['u1', 'u2']), $cache: R.chance(0.3) ? false : undefined };
      const n = R.chance(0.2) ? R.int(2, 5) : 1;
      const calls = [];
      for (let k = 0; k < n; k++) calls.push(within(() => b.call(act, params, opts), 700));
      await Promise.all(calls);
      return;
    }
    case 'callnode': {
      const node = R.pick(brokers.map((x) => x.nodeID).concat(['node-9', 'phantom']));
      await within(() => b.call(R.pick(['math.add', 'users.get', 'greeter.hello']), { a: 1, b: 1, id: 1 }, { nodeID: node }), 600);
      return;
    }
    case 'mcall':
      await within(() => b.mcall(R.chance(0.5)
        ? [{ action: 'math.add', params: { a: 1, b: 1 } }, { action: 'users.get', params: { id: 2 } }, { action: 'nosuch.x' }]
        : { x: { action: 'math.div', params: { a: 1, b: R.int(0, 1) } }, y: { action: 'math.slow', params: { ms: 20 } } },
      { settled: R.chance(0.5) }), 700);
      return;
    case 'stream':
      await within(() => b.call('greeter.upload', { n: R.int(1, 6), echo: R.chance(0.5) }), 1500);
      return;
    case 'emit':
      await within(() => b.emit(R.pick(['user.created', 'user.removed', 'bad.event', 'nobody.listens', 'math.changed']),
        { id: s, fail: R.chance(0.4) }, R.chance(0.3) ? { groups: R.pick(['users', ['math', 'greeter'], 'audit']) } : undefined), 500);
      return;
    case 'broadcast':
      await within(() => b.broadcast(R.pick(['user.created', 'user.removed', 'bad.event', '$custom.event', 'clock.tick']),
        { id: s, fail: R.chance(0.3) }, R.chance(0.3) ? { groups: R.pick(['users', 'greeter']) } : undefined), 500);
      return;
    case 'local':
      await within(() => b.broadcastLocal(R.pick(['user.created', 'bad.event', '$local.thing']), { id: s },
        R.chance(0.3) ? 'users' : undefined), 500);
      return;
    case 'create': {
      const failing = R.pick([null, null, 'started', 'stopped', 'created']);
      const name = `tmp${s}`;
      const deps = R.chance(0.2) ? [R.pick(['math', 'users', 'nowhere'])] : undefined;
      try {
        b.createService({
          name,
          dependencies: deps,
          settings: deps ? { $dependencyTimeout: R.pick([200, 500]), $dependencyInterval: 50 } : {},
          actions: { x() { return 1; }, y: { params: { q: 'string' }, handler(ctx) { return ctx.params.q; } } },
          events: { 'user.created'() {} },
          created() { if (failing === 'created') throw new Error(`${name} refused to be created`); },
          started() { if (failing === 'started') throw new Error(`${name} failed to start`); },
          stopped() { if (failing === 'stopped') throw new Error(`${name} failed to stop`); },
        });
      } catch (e) { /* a created() that throws fails createService itself */ }
      if (R.chance(0.6)) await sleep(R.int(5, 40));
      if (R.chance(0.6)) announce([b]);
      return;
    }
    case 'destroy': {
      const svc = R.chance(0.85) ? R.pick(b.services.filter((x) => x.name !== '$node').concat([null])) : null;
      const what = svc || R.pick(['nosuch', { name: 'math', version: 7 }]);
      await within(() => b.destroyService(what), 1500);
      return;
    }
    case 'wait':
      await within(() => b.waitForServices(R.pick([['math'], ['users', 'greeter'], [{ name: 'math', version: [2, 3] }], 'calc', ['ghost']]),
        150, 40), 400);
      return;
    case 'ping':
      await within(() => b.ping(R.pick([undefined, 'node-9', brokers[0].nodeID, brokers.map((x) => x.nodeID)]), 100), 400);
      return;
    case 'node':
      await within(() => b.call('$node.' + R.pick(['list', 'services', 'actions', 'events', 'health', 'options', 'metrics']),
        R.chance(0.5) ? { withServices: true, onlyLocal: R.chance(0.5), withEndpoints: true } : {}), 500);
      return;
    case 'cache':
      if (b.cacher) {
        const roll = R.rand();
        if (roll < 0.4) await within(() => b.cacher.clean(R.pick(['math.**', 'users.*', '**'])), 300);
        else if (roll < 0.7) await within(() => b.cacher.del(R.pick(['math.add:1|2', 'users.get:1'])), 300);
        else await within(() => b.broadcast('$cacher.clean', {}), 300);
      } else await within(() => b.call('users.get', { id: 1 }), 800);
      return;
    case 'raw':
      if (c.n > 1) rawPacket(R, c, live);
      else await within(() => b.call('math.crash'), 300);
      await sleep(5);
      return;
    case 'leave': {
      if (c.n < 2) return;
      const victim = R.pick(live);
      const roll = R.rand();
      if (roll < 0.3) {
        await within(() => victim.transit.sendDisconnectPacket(), 300);
      } else if (roll < 0.5) {
        const other = R.pick(live.filter((x) => x !== victim).concat([victim]));
        victim.registry.nodes.disconnected(other.nodeID, R.chance(0.5));
      } else if (roll < 0.8) {
        // stopped and started again: its peers see it leave and come back
        await within(() => victim.stop(), 2000);
        victim.__stopped = true;
        await sleep(R.int(5, 50));
        if (R.chance(0.7)) {
          await within(() => victim.start(), 1500);
          victim.__stopped = false;
        }
      } else {
        await within(() => victim.stop(), 2000);
        victim.__stopped = true;
      }
      return;
    }
    case 'load':
      try {
        if (R.chance(0.6)) b.loadServices(SVC_DIR, R.pick(['**/*.service.js', '*.service.js']));
        else b.loadService(path.join(SVC_DIR, R.pick(['broken.js', 'calc.service.js', 'missing.service.js'])));
      } catch (e) { /* a file that fails to load */ }
      await sleep(10);
      return;
    case 'spans':
      await within(() => b.call('math.spans', { foreign: R.chance(0.5) }), 500);
      return;
    default:
  }
}

// What a stopped broker leaves running: the metric reporters' interval
// timers (their stop() does not clear them; they would print in every later
// case) and the debounced announcement of local service changes.
function clearLeftovers(b) {
  const reporters = (b.metrics && b.metrics.reporter) || [];
  for (const r of reporters) if (r.timer) clearInterval(r.timer);
  if (b.localServiceChanged && b.localServiceChanged.cancel) b.localServiceChanged.cancel();
}

function announce(brokers) {
  for (const b of brokers) if (b.localServiceChanged && b.localServiceChanged.flush) b.localServiceChanged.flush();
}

async function runCase(i) {
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  mathRandom = cap.seededRandom(`${args.seed}-${i}-math`);
  const c = drawCase(R, i);
  const t0 = Date.now();
  log.caseId = c.id;
  const brokers = [];
  try {
    for (let b = 0; b < c.n; b++) brokers.push(new M.ServiceBroker(brokerOptions(R, c, b)));
    const first = brokers[0];
    const last = brokers[brokers.length - 1];
    first.createService(mathSchema(R, c, R.chance(0.3) ? 2 : undefined));
    if (c.n > 2 || (c.n === 2 && R.chance(0.3))) brokers[1].createService(mathSchema(R, c, undefined));
    try { last.createService(greeterSchema(R, c)); } catch (e) { /* schema refused */ }
    R.pick(brokers).createService(usersSchema(R));
    if (R.chance(0.15)) {
      // a service waiting for one that never comes
      R.pick(brokers).createService({ name: 'waiter', dependencies: ['ghost'], settings: { $dependencyTimeout: 200 }, started() {} });
    }
    if (R.chance(0.1)) {
      try { first.loadServices(SVC_DIR); } catch (e) { /* not reached: loadServices only lists the good ones */ }
    }
    // A broker tells its peers about its services through a call debounced
    // by a second (localServiceChanged).  Most cases run it as soon as it is
    // pending, while the brokers start and once after, so that dependencies
    // on another broker's services resolve and remote calls find their
    // endpoints without waiting; the others wait as moleculer does.
    const eager = R.chance(0.85);
    const ticker = eager ? setInterval(() => announce(brokers), 40) : null;
    // brokers start together or one after another (each transit waits 500 ms
    // for INFO packets after connecting)
    if (R.chance(0.9)) await within(() => Promise.all(brokers.map((b) => b.start())), 2500);
    else for (const b of brokers) await within(() => b.start(), 1500);
    if (ticker) clearInterval(ticker);
    if (eager) announce(brokers);
    const steps = R.int(5, 20);
    c.tStart = Date.now() - t0;
    for (let s = 0; s < steps; s++) {
      await step(R, c, brokers, s);
      if (R.chance(0.5)) await sleep(R.int(0, 25));
    }
    c.tSteps = Date.now() - t0;
    if (c.silentNode) {
      // one node goes quiet: no heartbeats, no DISCONNECT; its peers notice
      const mute = R.pick(brokers.slice(1));
      mute.registry.discoverer.stopHeartbeatTimers();
      await sleep(2600);
    }
    if (c.phantom && R.chance(0.5)) {
      global.bus.emit(`MOL-${c.ns}.DISCONNECT`, Buffer.from(JSON.stringify({ ver: '4', sender: 'phantom' })));
    }
    await sleep(R.int(0, 60));
    // a slow call left running while the brokers stop (context tracking)
    if (R.chance(0.3)) within(() => brokers[brokers.length - 1].call(R.pick(['math.slow', 'users.busy']), { ms: R.pick([100, 400]) }), 0);
    for (const b of R.shuffle(brokers)) {
      if (!b.__stopped || R.chance(0.2)) await within(() => b.stop(), 2500);
    }
  } catch (e) {
    if (process.env.PMRAG_TIMING) process.stderr.write(`${c.id} failed: ${e && e.stack}\n`);
    for (const b of brokers) await within(() => b.stop(), 1500);
  }
  await sleep(15);
  for (const b of brokers) clearLeftovers(b);
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${c.id} ${c.n} brokers start ${c.tStart} steps ${c.tSteps} total ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
}

async function main() {
  const t0 = Date.now();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  process.stderr.write(`${log.summary()}, ${dropped} records outside their case dropped, in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    (escaped ? ` (${escaped} uncaught exceptions)` : '') + (exitsRefused ? ` (${exitsRefused} exits refused)` : '') + '\n');
  cleanup();
  realExit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); realExit(1); });
