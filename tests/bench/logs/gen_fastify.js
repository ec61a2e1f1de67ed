#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `fastify` 4.28.1 (a web framework in plain CommonJS that
 * logs through its own pino, 9.14.0 in the lock), run in this process and
 * driven over loopback HTTP with Node's own `http` and `net` modules.
 *
 *   node gen_fastify.js --repo                    # prints the dir to index
 *   node gen_fastify.js --out .deps/logs/fastify.csv.gz [--cases 1000] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/fastify, prepared by --repo (and by every run) as
 * verbatim copies of node_modules/fastify/fastify.js and of the .js files
 * of node_modules/fastify/lib: fastify's own code only (its tests, docs,
 * examples, type definitions and build scripts, all shipped in the
 * package, left out).  The code runs from node_modules; stack frames are
 * mapped onto the copies (same lines), so truth paths look like
 * `fastify/lib/reply.js` and `fastify/fastify.js`.  Records emitted anywhere
 * else (the application's handlers, hooks and plugins in this file logging
 * through `request.log`, `reply.log` and `fastify.log`, as applications do)
 * are dropped and counted in the summary line.
 *
 * Logging: fastify hands every request a child of its logger (bindings
 * `{reqId}` or the label the application chose, the route's `logLevel` as
 * the child's level) made in `createChildLogger` and kept on `request.log`
 * and `reply.log`; the server-wide logger is `fastify.log`.  Calls are
 * pino's, a fields object first and the message after it:
 * `childLogger.info({ req: request }, 'incoming request')`,
 * `reply.log.info({ res: reply, responseTime }, 'request completed')`,
 * `reply.log.error({ req: request, res: reply, err: error }, error && error.message)`
 * (the default error handler logs the error's own message: the text of
 * whoever made the error, the application, a parser, a schema validator;
 * nothing when the application threw a string, so pino writes no `msg`),
 * this.log.trace({ err }, `client ${errorLabel}`), template literals
 * (`Route ${method}:${url} not found`), an Error alone
 * (`server.log.error(err)`, `reply.log.debug(err)`: pino takes its message)
 * and a fields object alone (`this.log.warn({ err: new FST_ERR_REP_ALREADY_SENT(...) })`:
 * pino takes the message of the object's `err`).  `logStreamError(logger,
 * err, res)` picks the level and the text itself, `logServerAddress` logs
 * the line the application's `listenTextResolver` (or fastify's default)
 * makes of the address: both are their lines' emitters, no function is
 * declared a wrapper and code.wrapped is always 0.  Request logging
 * (`incoming request`, `request completed`, the default 404 line and the
 * error handler's lines) is off when the application sets
 * `disableRequestLogging`.
 *
 * Capture: each case gives fastify a logger at level trace (~50%), debug
 * or info, named after the application (or not named), with a destination
 * of its own that hands every record to the capture and prints nothing: an
 * object with `write(line)` (the JSON line is parsed), passed either as
 * the `stream` of fastify's `logger` options (fastify then builds the pino
 * logger, ~75%) or inside a pino instance the application made with
 * fastify's own pino copy and handed over as `logger`; some cases set
 * pino's `msgPrefix` (the activity then starts with it), a child logger
 * factory of their own (`setChildLoggerFactory`), `requestIdLogLabel`,
 * `requestIdHeader` or `genReqId`.  Activity = the record's `msg` ('' when
 * pino wrote none), without the JSON envelope; level = the level name
 * upper-cased (TRACE, DEBUG, INFO, WARN, ERROR); logger = the logger's
 * `name` ('' when unnamed).  Emitter: the first stack frame below the
 * destination's write that is outside pino.  A record reaching a
 * destination made for another case than the open one (a late answer of
 * an earlier case) is dropped and counted.
 *
 * A case is one server lifetime with its own seeded PRNG: `fastify()` with
 * random options (`disableRequestLogging`, `ignoreTrailingSlash`,
 * `ignoreDuplicateSlashes`, `caseSensitive`, `maxParamLength`, `bodyLimit`,
 * `onProtoPoisoning`/`onConstructorPoisoning`, `return503OnClosing`,
 * `forceCloseConnections`, `frameworkErrors`, `rewriteUrl`, `requestTimeout`
 * with a short `connectionsCheckingInterval`, `connectionTimeout`,
 * `insecureHTTPParser` and `maxHeaderSize` for the http server,
 * `exposeHeadRoutes`, `trustProxy`, `maxRequestsPerSocket`, ajv's
 * `allErrors`/`coerceTypes`, `schemaErrorFormatter`, `listenTextResolver`,
 * an async `tenant` constraint that fails on a marked header), hooks at the
 * root and in plugins (onRequest, preParsing, preValidation, preHandler,
 * preSerialization, onSend, onResponse, onError, onTimeout,
 * onRequestAbort, onListen, onReady, preClose, onClose; async and callback
 * styles; most fail or answer early for requests marked by a header, some
 * onRequestAbort hooks for every aborted request),
 * content type parsers of the application's own (forms, CSV, a catch-all;
 * the text/plain one removed), custom error handlers (shaping, rethrowing
 * to fastify's default) and 404 handlers (one that calls `callNotFound`
 * again), then routes drawn from a catalogue: JSON resources with params,
 * body, querystring and header schemas (`attachValidation` in some),
 * response schemas that fail to serialize a reply or an error, handlers
 * that throw (synchronously, from async functions, non-Errors, errors with
 * status codes and headers, one with an invalid header value), replies
 * sent twice, after the headers were written by hand, or followed by a
 * rejection, hijacked replies, streams (files, a missing file, streams
 * failing before and after the headers, an old-style stream without
 * `destroy`, slow streams, streams after a hand-written head) and their
 * HEAD routes, trailers that fail, redirects, version- and
 * tenant-constrained routes, slow answers; and plugins registered with
 * `register` (encapsulated with prefixes, `logLevel` and hooks, error and
 * 404 handlers of their own, nested plugins, callback-style plugins, a
 * plugin made non-encapsulated with `skip-override`), routes with their own
 * `logLevel` (trace, debug, info, warn, silent) here and there.  Then 3-15
 * steps of requests through keep-alive agents (sometimes a burst of 2-4 at
 * once) with random headers and bodies (valid, malformed, empty and
 * poisoned JSON, bodies over the limits, unknown and missing content types,
 * forms, CSV, bodies sent slowly in two pieces, requests aborted early),
 * and raw socket exchanges (a garbage request line, headers past the size
 * limit, an HTTP version fastify refuses, a request left unfinished past
 * `requestTimeout`, pipelined requests).  At the end the case waits until
 * its requests are done (at most ~250 ms) and closes the server, in ~15%
 * of cases while a request is in flight on a keep-alive socket that then
 * sends another (the 503 fastify answers while closing).  Handlers decide
 * from the request alone, never from the PRNG, so concurrent requests
 * cannot change the case's later draws (plugin bodies draw from it while
 * fastify loads them at listen, in the order they were registered).
 *
 * Messages hold the server's address (`Server listening at
 * http://127.0.0.1:PORT`), URLs and methods, the application's error
 * messages, validation and parser messages, the temp dir's path (a missing
 * file's ENOENT); the envelope's fields (request
 * ids, ports, response times) are left out.  The destinations write nothing
 * anywhere.  Fixtures (files the stream routes send) live in a temp dir
 * removed at exit.  fastify's deprecation warnings (process warnings, not
 * log records) are silenced.  A throw that escapes fastify (its fallback
 * error handler writing the head again after the application wrote it by
 * hand, or a file stream's error after its HEAD reply, either of which
 * kills a real fastify process) is caught at process level and counted in
 * the summary line.  PMRAG_TIMING=1 prints one line per case to stderr;
 * PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const http = require('http');
const querystring = require('querystring');
const { Readable, Stream } = require('stream');

const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'fastify', 1000);
const NM = path.join(args.deps, 'node_modules');
const F_DIR = path.join(NM, 'fastify');
const INDEX_DIR = path.join(args.deps, 'fastify');
if (!fs.existsSync(path.join(F_DIR, 'package.json'))) {
  process.stderr.write(`missing ${F_DIR}: run npm ci in ${args.deps}\n`);
  process.exit(1);
}

// The indexed copy: fastify.js and lib/*.js, made afresh.
function prepareRepo() {
  const src = fs.realpathSync(F_DIR);
  fs.rmSync(INDEX_DIR, { recursive: true, force: true });
  fs.mkdirSync(INDEX_DIR, { recursive: true });
  fs.copyFileSync(path.join(src, 'fastify.js'), path.join(INDEX_DIR, 'fastify.js'));
  const copy = (s, d) => {
    fs.mkdirSync(d, { recursive: true });
    for (const ent of fs.readdirSync(s, { withFileTypes: true })) {
      if (ent.isDirectory()) copy(path.join(s, ent.name), path.join(d, ent.name));
      else if (ent.name.endsWith('.js')) fs.copyFileSync(path.join(s, ent.name), path.join(d, ent.name));
    }
  };
  copy(path.join(src, 'lib'), path.join(INDEX_DIR, 'lib'));
  return fs.realpathSync(INDEX_DIR);
}

const indexReal = prepareRepo();
if (args.repo) {
  process.stdout.write(indexReal + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_fastify.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// fastify's deprecation notices (FSTDEP...) go through process warnings
process.noDeprecation = true;
process.removeAllListeners('warning');

// the copy fastify itself loads
const F_REAL = fs.realpathSync(F_DIR);
const PINO_DIR = path.dirname(require.resolve('pino/package.json', { paths: [F_REAL] }));
const MAP = [[path.join(F_REAL, 'fastify.js'), path.join(indexReal, 'fastify.js')],
  [path.join(F_REAL, 'lib') + path.sep, path.join(indexReal, 'lib') + path.sep]];
const log = new cap.EventLog(args.out, {
  indexDir: indexReal,
  machinery: [PINO_DIR],
  mapLocation: (file, line, column) => {
    for (const [src, dst] of MAP) if (file === src || (src.endsWith(path.sep) && file.startsWith(src))) return { file: dst + file.slice(src.length), line, column };
    return null;
  },
});
const Fastify = require(F_REAL);
const pino = require(PINO_DIR);
const createError = require(require.resolve('@fastify/error', { paths: [F_REAL] }));

let foreign = 0; // records of an earlier case's logger
let outside = 0; // records whose emitter is not fastify's own code
let escaped = 0; // exceptions that escaped fastify
process.on('uncaughtException', (e) => {
  escaped++;
  if (process.env.PMRAG_VERBOSE) process.stderr.write(`uncaught: ${(e && e.stack) || e}\n`);
});
process.on('unhandledRejection', () => {});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noop = () => {};

// ---------------------------------------------------------------------------
// Fixtures: files the stream routes send, in a temp dir removed at exit.
const { dir: TMP, cleanup } = require('./_capture').tempDir('fastify');
fs.writeFileSync(path.join(TMP, 'report.txt'), 'quarterly figures, line after line\n'.repeat(400));
fs.writeFileSync(path.join(TMP, 'small.json'), '{"items":[1,2,3]}\n');

// ---------------------------------------------------------------------------
// The case's logger and its destination.
const LEVEL_NAMES = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

function keep(ck, msg, level, name, skipFn) {
  if (log.caseId !== ck) { foreign++; return; }
  if (!log.record(msg, level, name, skipFn)) outside++;
}

function makeLogger(R, ck, name) {
  const dest = {
    write: function pinoDestinationWrite(line) {
      let rec;
      try { rec = JSON.parse(line); } catch (e) { return; }
      const msg = rec.msg === undefined || rec.msg === null ? '' : String(rec.msg);
      keep(ck, msg, LEVEL_NAMES[rec.level] || String(rec.level).toUpperCase(), rec.name === undefined ? '' : String(rec.name),
        pinoDestinationWrite);
    },
  };
  const level = R.pick(['trace', 'trace', 'trace', 'trace', 'trace', 'debug', 'debug', 'info', 'info', 'info']);
  const opts = { level };
  if (name) opts.name = name;
  if (R.chance(0.1)) opts.msgPrefix = `[${name || 'app'}] `;
  if (R.chance(0.75)) return { kind: 'options', level, logger: Object.assign(opts, { stream: dest }) };
  return { kind: 'instance', level, logger: pino(opts, dest) };
}

// ---------------------------------------------------------------------------
// Application pieces.
const named = (name, fn) => Object.defineProperty(fn, 'name', { value: name });
const APP_NAMES = ['fastify', 'api', 'orders', 'billing-api', 'users-svc', 'gateway', 'catalog'];
const ITEMS = [{ id: 1, name: 'anvil', qty: 3 }, { id: 2, name: 'rope', qty: 12 }, { id: 3, name: 'lamp', qty: 0 }];

const FST_APP_QUOTA = createError('APP_QUOTA_EXCEEDED', 'Quota of %s exceeded', 429);
const FST_APP_UPSTREAM = createError('APP_UPSTREAM_DOWN', 'Upstream %s did not answer', 502);

// the error a hook or a handler throws for a request marked `x-fail: <where>`
function failure(where, req) {
  switch ((req.headers['x-fail-kind'] || '') + '') {
    case 'client': return Object.assign(new Error(`${where} refused ${req.method} ${req.url}`), { statusCode: 400 });
    case 'quota': return new FST_APP_QUOTA(where);
    case 'upstream': return new FST_APP_UPSTREAM(where);
    default: return new Error(`${where} failed`);
  }
}
const marked = (req, where) => req.headers['x-fail'] === where;

// a stream that sends one chunk, then fails (or fails at once)
function failingStream(early) {
  let n = 0;
  return new Readable({
    read() {
      if (!early && n++ === 0) { this.push('first part of the report\n'.repeat(50)); return; }
      setImmediate(() => this.destroy(new Error(early ? 'report store unreadable' : 'report store went away')));
    },
  });
}

// an old-style stream (no destroy, close or abort) emitting a few chunks
function legacyStream() {
  const s = new Stream();
  s.readable = true;
  let k = 0;
  const t = setInterval(() => {
    if (k++ < 4) s.emit('data', `chunk ${k}\n`);
    else { clearInterval(t); s.emit('end'); }
  }, 6);
  return s;
}

function slowStream() {
  let k = 0;
  return new Readable({
    read() {
      if (k >= 5) { this.push(null); return; }
      setTimeout(() => this.push(`line ${++k}\n`), 8);
    },
  });
}

// hooks: async or callback style, failing for requests marked for them
function addHooks(R, inst, scope, hooks) {
  const style = () => (R.chance(0.5) ? 'async' : 'cb');
  const add = (name, fn) => { inst.addHook(name, fn); hooks.push(name); };
  if (R.chance(0.4)) {
    const deny = R.chance(0.4);
    if (style() === 'async') {
      add('onRequest', named(`${scope}OnRequest`, async (req, reply) => {
        if (marked(req, 'onRequest')) throw failure('onRequest', req);
        if (deny && req.headers['x-deny']) { reply.code(403).send({ denied: true }); return reply; }
        return undefined;
      }));
    } else {
      add('onRequest', named(`${scope}OnRequest`, (req, reply, done) => {
        if (marked(req, 'onRequest')) return done(failure('onRequest', req));
        if (deny && req.headers['x-deny']) return reply.code(403).send({ denied: true });
        return done();
      }));
    }
  }
  if (R.chance(0.15)) {
    add('preParsing', named(`${scope}PreParsing`, async (req, reply, payload) => {
      if (marked(req, 'preParsing')) throw failure('preParsing', req);
      return payload;
    }));
  }
  if (R.chance(0.25)) {
    if (style() === 'async') {
      add('preValidation', named(`${scope}PreValidation`, async (req) => {
        if (marked(req, 'preValidation')) throw failure('preValidation', req);
      }));
    } else {
      add('preValidation', named(`${scope}PreValidation`, (req, reply, done) => done(marked(req, 'preValidation') ? failure('preValidation', req) : undefined)));
    }
  }
  if (R.chance(0.35)) {
    const cached = R.chance(0.3);
    if (style() === 'async') {
      add('preHandler', named(`${scope}PreHandler`, async (req, reply) => {
        if (marked(req, 'preHandler')) throw failure('preHandler', req);
        if (cached && req.headers['x-cached']) return reply.send({ cached: true });
        return undefined;
      }));
    } else {
      add('preHandler', named(`${scope}PreHandler`, (req, reply, done) => {
        if (marked(req, 'preHandler')) return done(failure('preHandler', req));
        if (cached && req.headers['x-cached']) return reply.send({ cached: true });
        return done();
      }));
    }
  }
  if (R.chance(0.2)) {
    add('preSerialization', named(`${scope}PreSerialization`, async (req, reply, payload) => {
      if (marked(req, 'preSerialization')) throw failure('preSerialization', req);
      return payload && typeof payload === 'object' && !Array.isArray(payload) ? Object.assign({ scope }, payload) : payload;
    }));
  }
  if (R.chance(0.3)) {
    if (style() === 'async') {
      add('onSend', named(`${scope}OnSend`, async (req, reply, payload) => {
        if (marked(req, 'onSend')) throw failure('onSend', req);
        reply.header('x-served-by', scope);
        return payload;
      }));
    } else {
      add('onSend', named(`${scope}OnSend`, (req, reply, payload, done) => {
        if (marked(req, 'onSend')) return done(failure('onSend', req));
        return done(null, typeof payload === 'string' && req.headers['x-wrap'] ? `${payload}\n` : payload);
      }));
    }
  }
  if (R.chance(0.3)) {
    if (style() === 'async') {
      add('onResponse', named(`${scope}OnResponse`, async (req, reply) => {
        if (marked(req, 'onResponse')) throw failure('onResponse', req);
        if (req.headers['x-audit']) req.log.info({ status: reply.statusCode }, 'audit: %s %s', req.method, req.url);
      }));
    } else {
      add('onResponse', named(`${scope}OnResponse`, (req, reply, done) => done(marked(req, 'onResponse') ? failure('onResponse', req) : undefined)));
    }
  }
  if (R.chance(0.25)) {
    add('onError', named(`${scope}OnError`, async (req, reply, err) => {
      if (req.headers['x-audit']) req.log.warn({ code: err.code }, 'audit: error %s', err.message);
    }));
  }
  if (R.chance(0.15)) add('onTimeout', named(`${scope}OnTimeout`, async (req) => { req.log.warn('app: socket timed out'); }));
  if (R.chance(0.2)) {
    if (R.chance(0.5)) {
      add('onRequestAbort', named(`${scope}OnRequestAbort`, async (req) => {
        if (marked(req, 'onRequestAbort')) throw failure('onRequestAbort', req);
      }));
    } else {
      add('onRequestAbort', named(`${scope}OnRequestAbort`, (req, done) => done(new Error(`cleanup after abort of ${req.url} failed`))));
    }
  }
}

// Routes of one kind on an instance (root or plugin); prefix is what the
// instance adds in front of its routes; add(method, path, kind) records a
// request candidate.
function addRoutes(R, inst, k, prefix, add, opts) {
  const P = (p) => prefix + p;
  const lvl = () => (R.chance(0.15) ? { logLevel: R.pick(['trace', 'debug', 'info', 'warn', 'silent']) } : {});
  switch (k) {
    case 'items': {
      const idSchema = R.chance(0.6) ? { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } } : {};
      inst.get('/items', lvl(), async () => ITEMS);
      inst.get('/items/:id', { schema: idSchema, ...lvl() }, async (req, reply) => {
        const it = ITEMS.find((x) => String(x.id) === String(req.params.id));
        if (it) return it;
        if (req.query && req.query.soft) return reply.callNotFound();
        throw Object.assign(new Error(`item ${req.params.id} not found`), { statusCode: 404 });
      });
      inst.post('/items', {
        schema: {
          body: {
            type: 'object', required: ['name'], additionalProperties: R.chance(0.5),
            properties: { name: { type: 'string', minLength: 2 }, qty: { type: 'integer', minimum: 0 } },
          },
        },
        ...lvl(),
      }, async (req, reply) => { reply.code(201); return { id: 4, ...req.body }; });
      inst.put('/items/:id', (req, reply) => { reply.send({ id: req.params.id, ...(req.body || {}) }); });
      inst.delete('/items/:id', (req, reply) => { reply.code(204).send(); });
      add('GET', P('/items')); add('GET', P('/items/1')); add('GET', P('/items/9')); add('GET', P('/items/9?soft=1'));
      add('GET', P('/items/abc')); add('GET', P('/items/%zz')); add('POST', P('/items'), 'json'); add('POST', P('/items'), 'json');
      add('POST', P('/items'), 'any'); add('PUT', P('/items/2'), 'json'); add('DELETE', P('/items/3')); add('PATCH', P('/items/1'), 'json');
      add('GET', P('/items/')); add('GET', P('/ITEMS')); add('GET', P('//items'));
      break;
    }
    case 'search': {
      const attach = R.chance(0.35);
      inst.get('/search', {
        attachValidation: attach,
        schema: {
          querystring: {
            type: 'object', required: ['q'],
            properties: { q: { type: 'string', minLength: 2 }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
          },
        },
        ...lvl(),
      }, async (req, reply) => {
        if (req.validationError) { reply.code(422); return { problem: req.validationError.message }; }
        return { q: req.query.q, hits: ITEMS.filter((x) => x.name.includes(req.query.q)).slice(0, req.query.limit || 10) };
      });
      add('GET', P('/search?q=an')); add('GET', P('/search?q=a')); add('GET', P('/search')); add('GET', P('/search?q=rope&limit=99'));
      add('GET', P('/search?q=la&limit=two'));
      break;
    }
    case 'secure':
      inst.get('/secure', {
        schema: { headers: { type: 'object', required: ['x-api-key'], properties: { 'x-api-key': { type: 'string', pattern: '^k-[0-9]+$' } } } },
        ...lvl(),
      }, async (req) => ({ key: req.headers['x-api-key'] }));
      add('GET', P('/secure'), 'key'); add('GET', P('/secure'), 'key'); add('GET', P('/secure'));
      break;
    case 'echo':
      inst.post('/echo', { bodyLimit: R.pick([undefined, 64, 1024]), ...lvl() }, async (req) => ({ got: req.body === undefined ? null : req.body }));
      add('POST', P('/echo'), 'json'); add('POST', P('/echo'), 'any'); add('POST', P('/echo'), 'form'); add('POST', P('/echo'), 'csv');
      add('POST', P('/echo'), 'big'); add('POST', P('/echo'), 'poison');
      break;
    case 'boom':
      inst.get('/boom', lvl(), named('explode', () => { throw new Error('handler exploded'); }));
      inst.get('/boom/async', async () => { await null; throw new TypeError('cannot read the ledger'); });
      inst.get('/boom/string', async () => { throw 'plain string rejection'; }); // eslint-disable-line no-throw-literal
      inst.get('/boom/teapot', (req, reply) => { reply.code(418).send(new Error('short and stout')); });
      inst.get('/boom/conflict', async () => { throw Object.assign(new Error('version conflict'), { statusCode: 409, code: 'APP_CONFLICT' }); });
      inst.get('/boom/quota', async (req) => { throw new FST_APP_QUOTA(req.headers['x-user'] || 'anonymous'); });
      inst.get('/boom/upstream', (req, reply) => { reply.send(new FST_APP_UPSTREAM('inventory')); });
      inst.get('/boom/header', async () => { throw Object.assign(new Error('bad header in error'), { headers: { 'x-detail': 'first\nsecond' } }); });
      inst.get('/boom/retry', async () => { throw Object.assign(new Error('try again later'), { statusCode: 503, headers: { 'retry-after': '5' } }); });
      for (const s of ['', '/async', '/string', '/teapot', '/conflict', '/quota', '/upstream', '/header', '/retry']) if (s === '' || R.chance(0.6)) add('GET', P('/boom' + s));
      break;
    case 'typed':
      inst.get('/typed', {
        schema: {
          response: {
            200: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
            '4xx': { type: 'object', properties: { message: { type: 'string' }, statusCode: { type: 'integer' } } },
            '5xx': { type: 'object', required: ['reason'], properties: { reason: { type: 'string' } } },
          },
        },
        ...lvl(),
      }, async (req) => {
        if (req.query.broken) return { id: 1 };
        if (req.query.fail) throw new Error('typed handler failed');
        if (req.query.bad) throw Object.assign(new Error('typed input rejected'), { statusCode: 400 });
        return { id: 1, name: 'anvil', extra: 'dropped by the schema' };
      });
      add('GET', P('/typed')); add('GET', P('/typed?broken=1')); add('GET', P('/typed?fail=1')); add('GET', P('/typed?bad=1'));
      break;
    case 'files': {
      inst.get('/files/report', (req, reply) => { reply.type('text/plain').send(fs.createReadStream(path.join(TMP, 'report.txt'))); });
      inst.get('/files/missing', (req, reply) => { reply.send(fs.createReadStream(path.join(TMP, 'no-such-file.txt'))); });
      inst.get('/files/unreadable', (req, reply) => { reply.type('text/plain').send(failingStream(true)); });
      inst.get('/files/broken', (req, reply) => { reply.type('text/plain').send(failingStream(false)); });
      inst.get('/files/legacy', (req, reply) => { reply.type('text/plain').send(legacyStream()); });
      inst.get('/files/slow', (req, reply) => { reply.type('text/plain').send(slowStream()); });
      inst.get('/files/raw', (req, reply) => {
        reply.raw.writeHead(200, { 'content-type': 'application/json' });
        reply.send(fs.createReadStream(path.join(TMP, 'small.json')));
      });
      add('GET', P('/files/report')); add('GET', P('/files/missing')); add('GET', P('/files/unreadable')); add('GET', P('/files/broken'));
      add('GET', P('/files/legacy')); add('GET', P('/files/legacy'), 'abort'); add('GET', P('/files/slow')); add('GET', P('/files/slow'), 'abort');
      add('GET', P('/files/raw')); add('HEAD', P('/files/broken')); add('HEAD', P('/files/unreadable')); add('HEAD', P('/files/report'));
      break;
    }
    case 'misuse':
      inst.get('/twice', (req, reply) => { reply.send({ first: true }); reply.send({ second: true }); });
      inst.get('/late-reject', async (req, reply) => { reply.send({ sent: true }); await null; throw new Error('cleanup after reply failed'); });
      inst.get('/by-hand', (req, reply) => { reply.raw.writeHead(200, { 'content-type': 'text/plain' }); reply.send('by hand'); });
      inst.get('/hijack', (req, reply) => { reply.hijack(); reply.raw.writeHead(200, { 'content-type': 'text/plain' }); reply.raw.end('hijacked\n'); });
      inst.get('/forgot', async () => { await null; });
      inst.get('/value', (req) => ({ returned: req.url }));
      add('GET', P('/twice')); add('GET', P('/late-reject')); add('GET', P('/by-hand')); add('GET', P('/hijack')); add('GET', P('/forgot'));
      add('GET', P('/value'));
      break;
    case 'trailers':
      inst.get('/timing', (req, reply) => {
        reply.trailer('server-timing', (rep, payload, done) => {
          if (req.query.fail) done(new Error('timing source unavailable'));
          else done(null, 'db;dur=12');
        });
        if (req.query.etag) reply.trailer('etag', async () => '"v1"');
        reply.send('timed body\n');
      });
      add('GET', P('/timing')); add('GET', P('/timing?fail=1')); add('GET', P('/timing?fail=1&etag=1'));
      break;
    case 'redirect':
      inst.get('/old', (req, reply) => { reply.redirect(P('/items')); });
      inst.get('/moved', (req, reply) => { reply.redirect(301, P('/')); });
      add('GET', P('/old')); add('GET', P('/moved'));
      break;
    case 'slow':
      inst.get('/slow', lvl(), (req, reply) => { setTimeout(() => reply.send({ slow: true }), 30 + (req.url.length % 4) * 10); });
      inst.get('/slow/async', async () => { await sleep(35); return { slow: 'async' }; });
      add('GET', P('/slow')); add('GET', P('/slow'), 'abort'); add('GET', P('/slow/async')); add('GET', P('/slow/async'), 'abort');
      break;
    case 'versions':
      inst.get('/greeting', { constraints: { version: '1.0.0' } }, async () => ({ hello: 'v1' }));
      inst.get('/greeting', { constraints: { version: '2.1.0' } }, async () => ({ hello: 'v2' }));
      inst.get('/greeting', async () => ({ hello: 'unversioned' }));
      add('GET', P('/greeting'), 'version'); add('GET', P('/greeting'), 'version'); add('GET', P('/greeting'));
      break;
    case 'tenant':
      if (opts.tenant) {
        inst.get('/tenant', { constraints: { tenant: 'acme' } }, async () => ({ tenant: 'acme' }));
        inst.get('/tenant', async (req) => ({ tenant: req.headers['x-tenant'] || null }));
        add('GET', P('/tenant'), 'tenant'); add('GET', P('/tenant'), 'tenant'); add('GET', P('/tenant'));
      }
      break;
    case 'applog':
      inst.get('/audit', async (req, reply) => {
        req.log.info({ who: req.headers['user-agent'] }, 'app: audit requested');
        reply.log.debug('app: answering the audit');
        return { audited: true };
      });
      add('GET', P('/audit'));
      break;
    default:
      break;
  }
}

// content type parsers of the application's own
function addParsers(R, inst) {
  if (R.chance(0.45) && !inst.hasContentTypeParser('application/x-www-form-urlencoded')) {
    inst.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
      try {
        decodeURIComponent(body.replace(/\+/g, ' '));
        done(null, querystring.parse(body));
      } catch (e) {
        done(Object.assign(new Error('malformed form body'), { statusCode: 400 }));
      }
    });
  }
  if (R.chance(0.3) && !inst.hasContentTypeParser('text/csv')) {
    inst.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: R.pick([128, 2048]) }, async (req, body) => {
      const rows = body.trim().split('\n').map((l) => l.split(','));
      if (rows.some((r) => r.length !== rows[0].length)) throw Object.assign(new Error(`ragged csv: ${rows.length} rows`), { statusCode: 422 });
      return rows;
    });
  }
  if (R.chance(0.12) && inst.hasContentTypeParser('text/plain')) inst.removeContentTypeParser('text/plain');
  if (R.chance(0.12) && !inst.hasContentTypeParser('*')) {
    inst.addContentTypeParser('*', function catchAll(req, payload, done) {
      let n = 0;
      payload.on('data', (c) => { n += c.length; });
      payload.on('end', () => done(null, { bytes: n }));
      payload.on('error', done);
    });
  }
}

function errorHandler(R, scope) {
  switch (R.pick(['shape', 'rethrow', 'async'])) {
    case 'shape':
      return named(`${scope}ErrorHandler`, (err, req, reply) => {
        reply.status(err.statusCode >= 400 ? err.statusCode : 500).send({ error: err.message, code: err.code || null, scope });
      });
    case 'rethrow':
      return named(`${scope}ErrorHandler`, (err, req, reply) => {
        if (err.validation) return reply.code(422).send({ invalid: err.validation.length });
        throw err;
      });
    default:
      return named(`${scope}ErrorHandler`, async (err, req, reply) => {
        if ((err.statusCode || 500) >= 500) req.log.error({ err }, 'app: unexpected failure');
        reply.code(err.statusCode || 500);
        return { failed: true, message: err.message };
      });
  }
}

function notFoundHandler(R, scope) {
  const again = R.chance(0.5);
  return named(`${scope}NotFound`, (req, reply) => {
    if (again && req.url.includes('/deeper')) return reply.callNotFound();
    return reply.code(404).send({ missing: req.url, scope });
  });
}

const PLUGINS = ['admin', 'v2', 'metrics', 'nested', 'legacy'];

function addPlugin(R, app, kind, add, hooks, info) {
  const lvlOpt = R.chance(0.3) ? { logLevel: R.pick(['trace', 'debug', 'info', 'warn']) } : {};
  switch (kind) {
    case 'admin':
      app.register(async function adminPlugin(inst) {
        inst.addHook('onRequest', async (req) => {
          if (!req.headers['x-admin']) throw Object.assign(new Error('admin credentials required'), { statusCode: 401 });
        });
        if (R.chance(0.5)) inst.setErrorHandler(errorHandler(R, 'admin'));
        inst.get('/stats', async () => ({ routes: 12, uptime: 1 }));
        inst.post('/flush', { schema: { body: { type: 'object', required: ['confirm'], properties: { confirm: { const: true } } } } },
          async () => ({ flushed: true }));
        inst.log.info('app: admin routes loaded');
        addRoutes(R, inst, R.pick(['boom', 'misuse', 'slow']), '/admin', add, info);
      }, { prefix: '/admin', ...lvlOpt });
      add('GET', '/admin/stats', 'admin'); add('GET', '/admin/stats'); add('POST', '/admin/flush', 'admin-json'); add('GET', '/admin/nope', 'admin');
      break;
    case 'v2':
      app.register(async function v2Plugin(inst) {
        addHooks(R, inst, 'v2', hooks);
        if (R.chance(0.5)) inst.setNotFoundHandler(notFoundHandler(R, 'v2'));
        if (R.chance(0.4)) inst.setErrorHandler(errorHandler(R, 'v2'));
        addParsers(R, inst);
        for (const k of R.sample(['items', 'search', 'echo', 'typed', 'files', 'trailers'], R.int(1, 3))) addRoutes(R, inst, k, '/v2', add, info);
      }, { prefix: '/v2', ...lvlOpt });
      add('GET', '/v2/unknown'); add('GET', '/v2/deeper/unknown');
      break;
    case 'metrics': {
      const metrics = async function metricsPlugin(inst) {
        inst.decorate('hits', { n: 0 });
        inst.addHook('onResponse', async () => { inst.hits.n++; });
        inst.addHook('onListen', async () => {
          if (info.failListen === 'metrics') throw new Error('metrics exporter could not bind');
        });
        inst.get('/metrics', async () => `hits ${inst.hits.n}\n`);
      };
      metrics[Symbol.for('skip-override')] = true;
      app.register(metrics);
      add('GET', '/metrics');
      break;
    }
    case 'nested':
      app.register(async function apiPlugin(api) {
        api.addHook('onListen', (done) => done(info.failListen === 'api' ? new Error('api warmup failed') : undefined));
        api.register(async function v1Plugin(inst) {
          if (R.chance(0.5)) addHooks(R, inst, 'v1', hooks);
          for (const k of R.sample(['items', 'boom', 'secure', 'redirect', 'misuse'], R.int(1, 2))) addRoutes(R, inst, k, '/api/v1', add, info);
        }, { prefix: '/v1', ...(R.chance(0.3) ? { logLevel: R.pick(['debug', 'warn']) } : {}) });
        api.get('/health', async () => ({ ok: true }));
      }, { prefix: '/api', ...lvlOpt });
      add('GET', '/api/health'); add('GET', '/api/v1/unknown'); add('GET', '/api/deeper');
      break;
    case 'legacy':
      app.register(function legacyPlugin(inst, opts, done) {
        inst.get('/ping', (req, reply) => { reply.send('pong'); });
        inst.get('/ping/fail', (req, reply) => { reply.code(500).send(new Error('legacy ping failed')); });
        if (R.chance(0.5)) inst.setNotFoundHandler(notFoundHandler(R, 'legacy'));
        done();
      }, { prefix: '/legacy', ...lvlOpt });
      add('GET', '/legacy/ping'); add('GET', '/legacy/ping/fail'); add('GET', '/legacy/missing'); add('GET', '/legacy/deeper/x');
      break;
    default:
      break;
  }
}

// Build the case's application: returns {app, paths, info}; paths are
// request candidates [method, path, kind] where kind says which request suits it.
function buildApp(R, lg, appName) {
  const opts = { logger: lg.logger };
  const info = { hooks: [], tenant: false, maxHeader: 0, requestTimeout: 0, failListen: null };
  if (R.chance(0.1)) opts.disableRequestLogging = true;
  if (R.chance(0.3)) opts.ignoreTrailingSlash = true;
  if (R.chance(0.15)) opts.ignoreDuplicateSlashes = true;
  if (R.chance(0.1)) opts.caseSensitive = false;
  if (R.chance(0.1)) opts.maxParamLength = 8;
  if (R.chance(0.3)) opts.bodyLimit = R.pick([256, 4096]);
  if (R.chance(0.25)) opts.onProtoPoisoning = R.pick(['error', 'remove', 'ignore']);
  if (R.chance(0.2)) opts.onConstructorPoisoning = R.pick(['error', 'remove']);
  if (R.chance(0.15)) opts.return503OnClosing = false;
  if (R.chance(0.4)) opts.forceCloseConnections = R.pick([false, true, 'idle']);
  if (R.chance(0.3)) opts.frameworkErrors = named('frameworkErrors', (err, req, reply) => reply.code(400).send({ framework: err.code }));
  if (R.chance(0.1)) opts.rewriteUrl = named('rewriteUrl', (req) => (req.url.startsWith('/old-api/') ? req.url.slice(8) : req.url));
  const httpOpts = {};
  if (R.chance(0.12)) { info.requestTimeout = opts.requestTimeout = R.pick([60, 90]); httpOpts.connectionsCheckingInterval = 15; }
  if (R.chance(0.06)) opts.connectionTimeout = 25;
  if (R.chance(0.2)) httpOpts.insecureHTTPParser = true;
  if (R.chance(0.15)) info.maxHeader = httpOpts.maxHeaderSize = 4096;
  if (Object.keys(httpOpts).length) opts.http = httpOpts;
  if (R.chance(0.1)) opts.exposeHeadRoutes = false;
  if (R.chance(0.15)) opts.trustProxy = true;
  if (R.chance(0.08)) opts.maxRequestsPerSocket = 3;
  if (R.chance(0.25)) opts.ajv = { customOptions: { allErrors: R.chance(0.6), coerceTypes: R.pick([true, 'array', false]) } };
  if (R.chance(0.1)) {
    opts.schemaErrorFormatter = named('schemaErrorFormatter',
      (errors, dataVar) => new Error(`invalid ${dataVar}: ${errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`));
  }
  if (R.chance(0.2)) opts.requestIdHeader = 'x-request-id';
  if (R.chance(0.15)) opts.requestIdLogLabel = 'rid';
  if (R.chance(0.1)) { let n = 0; opts.genReqId = named('genReqId', () => `${appName}-${++n}`); }
  const childFactory = R.chance(0.1);
  if (R.chance(0.12)) {
    info.tenant = true;
    opts.constraints = {
      tenant: {
        name: 'tenant',
        storage() { const m = new Map(); return { get: (k) => m.get(k) || null, set: (k, v) => { m.set(k, v); } }; },
        deriveConstraint(req, ctx, done) {
          setImmediate(() => (req.headers['x-tenant'] === 'broken' ? done(new Error('tenant directory unavailable')) : done(null, req.headers['x-tenant'])));
        },
        validate() {},
        mustMatchWhenDerived: false,
      },
    };
  }
  const app = Fastify(opts);
  if (childFactory) {
    app.setChildLoggerFactory(function childLoggerFactory(logger, bindings, childOpts, rawReq) {
      return logger.child(Object.assign({ ua: rawReq.headers['user-agent'] || null }, bindings), childOpts);
    });
  }
  const paths = [];
  const add = (m, p, kind) => paths.push([m, p, kind || null]);
  info.listenText = R.chance(0.2);

  // root hooks, parsers, handlers
  addHooks(R, app, 'root', info.hooks);
  addParsers(R, app);
  if (R.chance(0.3)) app.setErrorHandler(errorHandler(R, 'root'));
  if (R.chance(0.3)) {
    if (R.chance(0.3)) app.setNotFoundHandler({ preHandler: (req, reply, done) => done() }, notFoundHandler(R, 'root'));
    else app.setNotFoundHandler(notFoundHandler(R, 'root'));
  }
  if (R.chance(0.15)) {
    info.failListen = R.pick(['root', 'metrics', 'api']);
    if (R.chance(0.5)) app.addHook('onListen', async function rootOnListen() { if (info.failListen === 'root') throw new Error('cache warmup failed'); });
    else app.addHook('onListen', function rootOnListen(done) { done(info.failListen === 'root' ? new Error('cache warmup failed') : undefined); });
  }
  if (R.chance(0.2)) app.addHook('onReady', async function onReady() { this.log.info('app: ready'); });
  if (R.chance(0.2)) app.addHook('preClose', (done) => { app.log.info('app: draining'); done(); });
  if (R.chance(0.3)) app.addHook('onClose', async (instance) => { instance.log.info('app: closed'); });
  if (R.chance(0.1)) app.addHook('onRoute', (ro) => { if (ro.url === '/') ro.logLevel = ro.logLevel || 'info'; });

  add('GET', '/');
  app.get('/', async () => ({ app: appName, ok: true }));
  const kinds = R.sample(['items', 'items', 'search', 'secure', 'echo', 'boom', 'boom', 'typed', 'files', 'misuse', 'trailers', 'redirect',
    'slow', 'versions', 'applog'], R.int(3, 8));
  if (info.tenant) kinds.push('tenant');
  for (const k of new Set(kinds)) addRoutes(R, app, k, '', add, info);
  for (const p of R.sample(PLUGINS, R.int(0, 3))) addPlugin(R, app, p, add, info.hooks, info);
  // paths no route serves
  add('GET', '/nope'); add('POST', '/nope', 'json'); add('GET', '/nope/deeper'); add('DELETE', '/'); add('OPTIONS', '/items');
  if (opts.rewriteUrl) { add('GET', '/old-api/items'); add('GET', '/old-api/'); }
  info.slowPath = paths.some((x) => x[1] === '/slow') ? '/slow' : null;
  return { app, paths, info };
}

// ---------------------------------------------------------------------------
// Requests.
const ACCEPTS = ['application/json', 'text/plain', '*/*', 'text/html', 'application/xml'];
const VERSIONS = ['1.0.0', '1.x', '2.1.0', '2', '3.0.0', 'banana'];
const FAIL_KINDS = ['', '', 'client', 'quota', 'upstream'];

function bodyFor(R, kind, info) {
  switch (kind) {
    case 'json': {
      const r = R.rand();
      if (r < 0.6) return ['application/json', JSON.stringify(R.pick([{ name: 'ann', qty: 2 }, { name: 'b' }, { qty: -1 }, { name: 'rope', colour: 'red' }]))];
      if (r < 0.75) return ['application/json', R.pick(['{"name": "ann",', '{bad json}', '[1, 2'])];
      if (r < 0.85) return ['application/json', ''];
      return ['application/json', R.pick(['{"name":"x","__proto__":{"admin":true}}', '{"name":"x","constructor":{"prototype":{"admin":true}}}'])];
    }
    case 'admin-json': return ['application/json', JSON.stringify(R.pick([{ confirm: true }, { confirm: 'yes' }, {}]))];
    case 'poison': return ['application/json', R.pick(['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'])];
    case 'form': return ['application/x-www-form-urlencoded', R.pick(['name=ann&qty=2', 'name=%E0%A4%A&qty=1', 'a=%zz&b', 'tags=a&tags=b'])];
    case 'csv': return ['text/csv', R.pick(['a,b\n1,2\n3,4', 'a,b\n1\n2,3,4', 'x,y\n' + '5,6\n'.repeat(60)])];
    case 'big': return ['application/json', JSON.stringify({ blob: 'y'.repeat(R.pick([100, 600, 5000])) })];
    case 'any': return R.pick([['text/plain', 'hello there'], ['application/x-yaml', 'a: 1'], ['application/json', '{"name":"lamp"}'],
      ['text/csv', 'a,b\n1,2'], [null, 'no type at all'], ['application/xml', '<a/>'], ['application/x-www-form-urlencoded', 'name=ann']]);
    default: return null;
  }
}

function plan(R, paths, info) {
  let [method, p, kind] = R.chance(0.92) ? R.pick(paths)
    : [R.pick(['GET', 'POST', 'PUT']), R.pick(['/x/y', '/items/1/extra', '/%zz', '/a'.repeat(R.int(3, 20)), '/v2', '/admin']), null];
  const headers = {};
  if (R.chance(0.15)) headers.accept = R.pick(ACCEPTS);
  if (kind === 'version' || R.chance(0.05)) headers['accept-version'] = R.pick(VERSIONS);
  if (kind === 'tenant' || (info.tenant && R.chance(0.25))) headers['x-tenant'] = R.pick(['acme', 'globex', 'broken']);
  if (kind === 'key') headers['x-api-key'] = R.pick(['k-123', 'wrong']);
  if ((kind === 'admin' || kind === 'admin-json') && R.chance(0.75)) headers['x-admin'] = '1';
  if (info.hooks.length && R.chance(0.15)) {
    headers['x-fail'] = R.pick(info.hooks);
    const fk = R.pick(FAIL_KINDS);
    if (fk) headers['x-fail-kind'] = fk;
  }
  for (const h of ['x-deny', 'x-cached', 'x-audit', 'x-wrap']) if (R.chance(0.05)) headers[h] = '1';
  if (R.chance(0.1)) headers['x-request-id'] = `req-${R.int(1000, 9999)}`;
  if (R.chance(0.1)) headers['x-forwarded-for'] = R.pick(['10.0.0.1', '203.0.113.9, 10.0.0.2']);
  if (R.chance(0.06) && !p.includes('?')) p += R.pick(['?a=1&b=2', '?soft=1', '?fail=1']);
  let body = null;
  const bk = ['json', 'form', 'csv', 'big', 'any', 'poison', 'admin-json'].includes(kind) ? kind
    : (method === 'POST' || method === 'PUT' || method === 'PATCH') ? R.pick(['json', 'json', 'form', 'any', 'big']) : null;
  if (bk) body = bodyFor(R, bk, info);
  else if (method === 'GET' && R.chance(0.03)) body = bodyFor(R, 'json', info);
  if (body && body[0]) headers['content-type'] = body[0];
  return { method, path: p, headers, body: body ? body[1] : null,
    abort: kind === 'abort' ? R.int(8, 14) : R.chance(0.03) ? R.int(2, 10) : 0,
    slowBody: body && body[1] && R.chance(0.08) ? R.int(5, 20) : 0 };
}

// A raw exchange on a socket of its own: write the pieces, wait for the
// server to answer and close (or for `wait` ms), then close.
function rawExchange(port, pieces, wait) {
  return new Promise((resolve) => {
    let done = false;
    const s = net.connect(port, '127.0.0.1');
    const finish = () => { if (!done) { done = true; clearTimeout(guard); s.destroy(); resolve(); } };
    const guard = setTimeout(finish, wait);
    s.on('error', finish);
    s.on('close', finish);
    s.on('data', noop);
    s.on('connect', () => { for (const p of pieces) s.write(p); });
  });
}

function rawPlan(R, info) {
  const kinds = ['garbage', 'overflow', 'version', 'pipeline'];
  if (info.requestTimeout) kinds.push('partial', 'partial');
  switch (R.pick(kinds)) {
    case 'garbage':
      return [[R.pick(['BLAH\r\n\r\n', 'GET /\x01bad HTTP/1.1\r\n\r\n', 'GET / HTTP/1.1\r\nHost x\r\n\r\n', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'])], 150];
    case 'overflow': {
      const size = info.maxHeader ? 5000 : 17000;
      return [[`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(size)}\r\n\r\n`], 150];
    }
    case 'version':
      return [[`GET ${R.pick(['/', '/items'])} ${R.pick(['HTTP/1.2', 'HTTP/2.0', 'HTTP/0.9'])}\r\nHost: x\r\nConnection: close\r\n\r\n`], 150];
    case 'partial':
      return [['GET /items HTTP/1.1\r\nHost: x\r\n'], info.requestTimeout + 120];
    default:
      return [['GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], 150];
  }
}

// A request in flight on a keep-alive socket while the server closes, then
// a second request on the same socket.
async function closeRace(port, app, slowPath) {
  const s = net.connect(port, '127.0.0.1');
  s.on('error', noop);
  s.on('data', noop);
  await new Promise((r) => { s.on('connect', r); s.on('error', r); });
  s.write(`GET ${slowPath} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
  await sleep(8);
  const closing = app.close().catch(noop);
  await sleep(4);
  if (!s.destroyed) s.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  await Promise.race([closing, sleep(150)]);
  s.destroy();
  await Promise.race([closing, sleep(150)]);
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const t0 = Date.now();
  log.caseId = ck;
  const appName = R.chance(0.85) ? R.pick(APP_NAMES) : '';
  const lg = makeLogger(R, ck, appName);
  let app = null;
  let closed = false;
  const agents = [];
  const pending = new Set();
  let active = 0;
  const track = (p) => { pending.add(p); p.then(() => pending.delete(p)); return p; };
  try {
    const built = buildApp(R, lg, appName);
    app = built.app;
    const listenOpts = { port: 0, host: '127.0.0.1' };
    if (built.info.listenText) listenOpts.listenTextResolver = (address) => `${appName || 'app'} accepting requests on ${address}`;
    try {
      await app.listen(listenOpts);
    } catch (e) {
      if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: listen: ${e.message}\n`);
    }
    // requests the server is still answering
    app.server.on('request', (req, res) => { active++; res.on('close', () => { active--; }); });
    const addr = app.server.address();
    if (addr) {
      const port = addr.port;
      const agent = new http.Agent({ keepAlive: R.chance(0.8), maxSockets: 1 });
      const wide = new http.Agent({ keepAlive: true, maxSockets: 4 });
      agents.push(agent, wide);
      const steps = R.int(3, 15);
      for (let k = 0; k < steps; k++) {
        const r = R.rand();
        if (r < 0.08) {
          const [pieces, wait] = rawPlan(R, built.info);
          await track(rawExchange(port, pieces, wait));
        } else if (r < 0.24) {
          const n = R.int(2, 4);
          const qs = [];
          for (let j = 0; j < n; j++) qs.push(R.chance(0.5) && qs.length ? qs[0] : plan(R, built.paths, built.info));
          await Promise.all(qs.map((q) => track(cap.httpRequest(port, wide, q))));
        } else {
          const q = plan(R, built.paths, built.info);
          const st = await track(cap.httpRequest(port, agent, q));
          if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${q.method} ${q.path} -> ${st}\n`);
        }
        if (R.chance(0.08)) await sleep(R.pick([5, 20]));
      }
      if (built.info.slowPath && R.chance(0.4)) {
        for (let w = 0; w < 25 && (pending.size || active > 0); w++) await sleep(10);
        for (const a of agents) a.destroy();
        await closeRace(port, app, built.info.slowPath);
        closed = true;
      }
    }
    // let answers still being written (slow handlers, aborted requests) finish
    for (let w = 0; w < 25 && (pending.size || active > 0); w++) await sleep(10);
  } catch (e) {
    if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${e.stack}\n`);
  }
  for (const a of agents) a.destroy();
  if (app && !closed) {
    await new Promise((resolve) => {
      const t = setTimeout(() => { if (app.server.closeAllConnections) app.server.closeAllConnections(); }, 150);
      const t2 = setTimeout(resolve, 300);
      app.close().catch(noop).then(() => { clearTimeout(t); clearTimeout(t2); resolve(); });
    });
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${lg.kind}/${lg.level} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
}

async function main() {
  const t0 = Date.now();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s (${foreign} records of earlier cases, ` +
    `${outside} emitted outside fastify.js and lib dropped` + (escaped ? `, ${escaped} exceptions escaped fastify` : '') + ')\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
