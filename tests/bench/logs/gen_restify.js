#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `restify` 11.1.0 (a REST framework in plain CommonJS),
 * run in this process and driven over loopback HTTP with Node's own `http`
 * module.
 *
 *   node gen_restify.js --repo                    # prints the dir to index
 *   node gen_restify.js --out .deps/logs/restify.csv.gz [--cases 1000] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/restify/lib (truth paths `lib/...`), restify's
 * own code only.  Records emitted anywhere else (the application's handlers
 * in this file logging through `req.log`, as applications do) are dropped
 * and counted in the summary line.
 *
 * Logging: restify logs through the logger the application passes as the
 * `log` option of createServer (pino by default since restify 9; restify
 * 1-8 used bunyan, whose API restify 11 still calls), on `server.log`, on
 * `req.log` and `res.log` (the server's logger, or a child with a `req_id`
 * made per request by the requestLogger plugin), and on children the audit
 * logger makes (`{audit: true, component: <event>}`).  Calls are bunyan's
 * and pino's printf style, a fields object first:
 * `req.log.trace({err: err, errName: ...}, 'entering emitErrorEvents', errName)`,
 * `log.info(obj, 'handled: %d', res.statusCode)`,
 * `req.log.trace('Throttle(%s): num_tokens= %d', attr, bucket.tokens)`.
 * restify logs little: the response path, error dispatch, the async-handler
 * check in the chain, the audit logger and four plugins (throttle,
 * inflightRequestThrottle, dateParser, urlEncodedBodyParser), mostly at
 * trace.  Three call sites test the level first with `if (log.trace())`, a
 * bunyan idiom: bunyan answers true at trace and logs nothing, then the
 * guarded call logs `response::send entered`, `response sent` or
 * `Checking clock skew`; pino logs a record without a message for the bare
 * `log.trace()` and returns undefined, so the guarded call never runs and
 * a pino log holds message-less trace records at those three lines instead.
 * The renderings differ too: bunyan's util.format appends an argument the
 * format has no hole for (`entering emitErrorEvents NotFoundError`), pino's
 * formatter drops it (`entering emitErrorEvents`).  `formatterError` in
 * response.js logs the text its callers hand it, but it also sets the status
 * and flushes the response, so it is the emitter, not a wrapper: no
 * function is declared a wrapper and code.wrapped is always 0.
 *
 * Capture: each case makes its own logger at level trace, pino 8.21.0
 * (restify's own copy; ~70% of cases) or bunyan 2.0.5 (~30%, pinned beside
 * restify), named after the application, with a destination of its own that
 * hands every record to the capture and prints nothing: for pino an object
 * with `write(line)` (the JSON line is parsed), for bunyan a `raw` stream
 * (the record object).  Activity = the record's `msg` ('' when pino wrote
 * none), without the JSON envelope; level = the level name upper-cased
 * (TRACE, DEBUG, INFO, WARN); logger = the logger's `name`, then
 * `/component` when the record has that field (the audit logger's `after`,
 * `pre`, `routed`).  Emitter: the first stack frame below the destination's
 * write that is outside pino and bunyan.  A record reaching a destination
 * made for another case than the open one (a late response of an earlier
 * case) is dropped and counted.
 *
 * A case is one server lifetime with its own seeded PRNG: `createServer` with
 * random options (name, or none; `handleUncaughtExceptions`, `onceNext`,
 * `strictNext`, `strictFormatters`, find-my-way's `ignoreTrailingSlash`,
 * `caseSensitive`, `ignoreDuplicateSlashes`, `maxParamLength`; extra
 * formatters for text/csv and application/xml, the xml one refusing bodies
 * it cannot render with a restify error), `first` handlers dropping marked
 * requests, `pre` handlers (restify's pre plugins, a CORS handler answering
 * preflights with `next(false)`, a rewrite, a refusal), `use` plugins in a
 * random order (acceptParser, authorizationParser, dateParser with a random
 * clock skew, queryParser, bodyParser with random limits, `rejectUnknown`
 * and an upload dir, or the JSON or urlencoded parser alone, jsonp,
 * gzipResponse, requestLogger, throttle by ip, x-forwarded-for or username,
 * inflightRequestThrottle, conditionalRequest, fullResponse, requestExpiry,
 * and middleware of the application's own that halt or fail marked
 * requests), then routes drawn from a catalogue: JSON resources with params
 * and named routes, chains that call `next(false)`, `next(err)` with
 * `restify-errors`, `next('routeName')` (restify 11 no longer jumps to the
 * named route: it answers 500 with the name as message), handlers that throw
 * (synchronously and from a timer), async handlers that resolve, return a
 * value, reject with an Error or with something else, text and raw bodies,
 * piped streams, redirects, 204s, handlers that never answer, regex params,
 * versions and content types through conditionalHandler, serveStatic and
 * serveStaticFiles of a temp dir, authenticated routes, form posts,
 * uploads, content negotiation, slow answers.  Listeners for `restifyError`,
 * `NotFound`, `InternalServer` or `uncaughtException` are added at random,
 * and audit loggers on `after` (~55%), `pre` and `routed`.  Then 3-15 steps
 * of requests through keep-alive agents (sometimes a burst of 2-4 at once,
 * which trips the throttles): known and unknown paths and methods (404,
 * 405, `OPTIONS *`), Accept, Accept-Version, Accept-Encoding, Date,
 * Authorization, X-Forwarded-For, conditional and expiry headers, JSON, form,
 * text, multipart and unknown bodies, malformed JSON and forms, bodies over
 * the limit, bodies sent slowly in two pieces, requests aborted early.  At
 * the end the case waits until its requests are done (at most ~250 ms) and
 * closes the server.  Handlers decide from the request alone, never from the
 * PRNG, so concurrent requests cannot change the case's later draws.
 *
 * Messages hold the client address and a token count that depends on timing
 * (`Throttle(127.0.0.1): num_tokens= 0.0025`), status codes, error names and
 * the posted form (`req.params now: %j`); the audit records' fields (ports,
 * headers, latencies) are left out with the envelope.  The pino
 * destinations and bunyan streams write nothing anywhere.  Fixtures (static
 * files, uploads) live in a temp dir removed at exit.  A throw that escapes
 * restify (a handler's sync throw without `handleUncaughtExceptions`, or the
 * assertion `res.send` throws for a body no formatter rendered, either of
 * which kills a real restify process) is caught at process level and counted
 * in the summary line; its request then gets no answer and the client gives
 * up after 400 ms.  PMRAG_TIMING=1 prints one line per case to stderr;
 * PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');

const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'restify', 1000);
const NM = path.join(args.deps, 'node_modules');
const R_DIR = path.join(NM, 'restify');
const INDEX_DIR = path.join(R_DIR, 'lib');
if (!fs.existsSync(path.join(R_DIR, 'package.json'))) {
  process.stderr.write(`missing ${R_DIR}: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_restify.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// spdy's http-deceiver touches process.binding('http_parser'); response.js
// reads res._headers: both print deprecation warnings the log does not need
process.noDeprecation = true;

// the copies restify itself loads
const PINO_DIR = path.dirname(require.resolve('pino/package.json', { paths: [R_DIR] }));
const BUNYAN_DIR = path.join(NM, 'bunyan');
const log = new cap.EventLog(args.out, { indexDir: INDEX_DIR, machinery: [PINO_DIR, BUNYAN_DIR] });
const restify = require(R_DIR);
const errors = require(require.resolve('restify-errors', { paths: [R_DIR] }));
const pino = require(PINO_DIR);
const bunyan = require(BUNYAN_DIR);

let foreign = 0; // records of an earlier case's logger
let outside = 0; // records whose emitter is not in restify/lib
let escaped = 0; // exceptions that escaped restify
process.on('uncaughtException', (e) => {
  escaped++;
  if (process.env.PMRAG_VERBOSE) process.stderr.write(`uncaught: ${(e && e.stack) || e}\n`);
});
process.on('unhandledRejection', () => {});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noop = () => {};

// ---------------------------------------------------------------------------
// Fixtures: static files and an upload dir, in a temp dir removed at exit.
const { dir: TMP, cleanup } = require('./_capture').tempDir('restify');
const PUB = path.join(TMP, 'public');
const UPLOADS = path.join(TMP, 'uploads');
for (const d of [PUB, path.join(PUB, 'docs'), path.join(PUB, 'empty'), UPLOADS]) fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(path.join(PUB, 'index.html'), '<html><body>static index</body></html>\n');
fs.writeFileSync(path.join(PUB, 'app.js'), 'console.log("app");\n');
fs.writeFileSync(path.join(PUB, 'data.json'), '{"items":[1,2,3]}\n');
fs.writeFileSync(path.join(PUB, 'docs', 'index.html'), '<p>docs</p>\n');
fs.writeFileSync(path.join(PUB, 'docs', 'guide.txt'), 'restify guide\n'.repeat(200));
fs.writeFileSync(path.join(PUB, 'big.txt'), 'lorem ipsum dolor sit amet '.repeat(2000));

// ---------------------------------------------------------------------------
// The case's logger and its destination.
const LEVEL_NAMES = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const loggerName = (rec) => (rec.component ? `${rec.name}/${rec.component}` : String(rec.name || ''));

function keep(ck, msg, level, name, skipFn) {
  if (log.caseId !== ck) { foreign++; return; }
  if (!log.record(msg, level, name, skipFn)) outside++;
}

function makeLogger(R, ck, name) {
  if (R.chance(0.7)) {
    const dest = {
      write: function pinoDestinationWrite(line) {
        let rec;
        try { rec = JSON.parse(line); } catch (e) { return; }
        const msg = rec.msg === undefined || rec.msg === null ? '' : String(rec.msg);
        keep(ck, msg, LEVEL_NAMES[rec.level] || String(rec.level), loggerName(rec), pinoDestinationWrite);
      },
    };
    return { kind: 'pino', logger: pino({ name, level: 'trace' }, dest) };
  }
  const stream = {
    write: function bunyanRawWrite(rec) {
      keep(ck, rec.msg, String(bunyan.nameFromLevel[rec.level] || rec.level).toUpperCase(), loggerName(rec), bunyanRawWrite);
    },
  };
  const opts = { name, level: 'trace', streams: [{ type: 'raw', level: 'trace', stream }] };
  if (R.chance(0.5)) opts.serializers = bunyan.stdSerializers;
  return { kind: 'bunyan', logger: bunyan.createLogger(opts) };
}

// ---------------------------------------------------------------------------
// Application pieces.
const named = (name, fn) => Object.defineProperty(fn, 'name', { value: name });
const APP_NAMES = ['restify', 'api', 'inventory', 'billing-api', 'users-svc', 'gateway', 'catalog'];

// a formatter for application/xml that refuses what it cannot render, with
// a restify error (restify then logs the failure and answers its status)
function xmlFormatter(req, res, body) {
  if (body instanceof Error) return `<error>${body.message}</error>`;
  if (Buffer.isBuffer(body) || typeof body !== 'object' || body === null) {
    throw new errors.NotAcceptableError('cannot render %s as xml', typeof body);
  }
  const inner = Object.keys(body).map((k) => `<${k}>${String(body[k])}</${k}>`).join('');
  const data = `<doc>${inner}</doc>`;
  res.setHeader('Content-Length', Buffer.byteLength(data));
  return data;
}
function csvFormatter(req, res, body) {
  let data;
  if (Array.isArray(body)) data = body.map((r) => (typeof r === 'object' ? Object.values(r).join(',') : String(r))).join('\n');
  else if (body && typeof body === 'object' && !(body instanceof Error)) data = Object.keys(body).join(',') + '\n' + Object.values(body).join(',');
  else data = String(body);
  res.setHeader('Content-Length', Buffer.byteLength(data));
  return data;
}

const ITEMS = [{ id: 1, name: 'anvil' }, { id: 2, name: 'rope' }, { id: 3, name: 'lamp' }];

// Build the case's server: returns {server, paths, ...}; paths are request
// candidates [method, path, kind] where kind says which body suits it.
function buildServer(R, logger, appName) {
  const opts = { log: logger };
  if (R.chance(0.85)) opts.name = R.chance(0.7) ? appName : R.pick(APP_NAMES);
  else if (R.chance(0.4)) opts.name = '';
  const uncaught = R.chance(0.35);
  if (uncaught) opts.handleUncaughtExceptions = true;
  if (R.chance(0.1)) opts.onceNext = true;
  if (R.chance(0.1)) opts.strictNext = true;
  if (R.chance(0.15)) opts.strictFormatters = false;
  if (R.chance(0.3)) opts.ignoreTrailingSlash = true;
  if (R.chance(0.15)) opts.caseSensitive = false;
  if (R.chance(0.15)) opts.ignoreDuplicateSlashes = true;
  if (R.chance(0.1)) opts.maxParamLength = R.pick([8, 16]);
  const fmt = {};
  if (R.chance(0.3)) fmt['application/xml; q=0.4'] = xmlFormatter;
  if (R.chance(0.25)) fmt['text/csv; q=0.3'] = csvFormatter;
  if (Object.keys(fmt).length) opts.formatters = fmt;
  const server = restify.createServer(opts);
  const paths = [];
  const P = restify.plugins;

  // first: before restify touches the request at all
  if (R.chance(0.15)) {
    server.first(named('dropMarked', (req, res) => {
      if (req.headers['x-drop'] !== undefined) { res.statusCode = 503; res.end(); return false; }
      return true;
    }));
  }

  // pre
  const pre = [];
  if (R.chance(0.3)) pre.push(() => server.pre(restify.pre.dedupeSlashes()));
  if (R.chance(0.3)) pre.push(() => server.pre(restify.pre.sanitizePath()));
  if (R.chance(0.2)) pre.push(() => server.pre(restify.pre.context()));
  if (R.chance(0.2)) pre.push(() => server.pre(restify.pre.reqIdHeaders({ headers: ['x-request-id'] })));
  if (R.chance(0.15)) pre.push(() => server.pre(restify.pre.userAgentConnection()));
  if (R.chance(0.08)) pre.push(() => server.pre(restify.pre.strictQueryParams({ message: 'bad query string' })));
  if (R.chance(0.3)) {
    pre.push(() => server.pre(named('cors', (req, res, next) => {
      res.header('Access-Control-Allow-Origin', req.headers.origin || '*');
      res.header('Access-Control-Allow-Headers', 'Content-Type, Authorization, Accept-Version');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
        res.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
        res.send(204);
        return next(false);
      }
      return next();
    })));
  }
  if (R.chance(0.15)) {
    pre.push(() => server.pre(named('rewriteLegacy', (req, res, next) => {
      if (req.url.startsWith('/legacy/')) req.url = req.url.slice(7);
      next();
    })));
  }
  if (R.chance(0.12)) {
    pre.push(() => server.pre(named('denyBlocked', (req, res, next) => {
      if (req.headers['x-blocked']) return next(new errors.ForbiddenError('client %s is blocked', req.headers['x-blocked']));
      return next();
    })));
  }
  for (const f of R.shuffle(pre)) f();

  // use: plugins and the application's own middleware, in a random order
  const use = [];
  const hasAuth = R.chance(0.35);
  const bodyKind = R.pick(['full', 'full', 'full', 'json', 'form', 'none']);
  if (R.chance(0.5)) use.push(() => server.use(P.acceptParser(server.acceptable)));
  if (R.chance(0.35)) use.push(() => server.use(P.dateParser(R.pick([1, 30, 300]))));
  if (R.chance(0.7)) use.push(() => server.use(P.queryParser({ mapParams: R.chance(0.4) })));
  if (bodyKind === 'full') {
    const bo = { maxBodySize: R.pick([0, 256, 2048, 65536]), mapParams: R.chance(0.4), uploadDir: UPLOADS };
    if (!bo.maxBodySize) delete bo.maxBodySize;
    if (R.chance(0.3)) bo.rejectUnknown = true;
    if (R.chance(0.15)) bo.requestBodyOnGet = true;
    use.push(() => server.use(P.bodyParser(bo)));
  } else if (bodyKind === 'json') {
    use.push(() => server.use(P.jsonBodyParser({ mapParams: R.chance(0.3) })));
  } else if (bodyKind === 'form') {
    use.push(() => server.use(P.bodyReader({ maxBodySize: R.pick([512, 4096]) })),
      () => server.use(P.urlEncodedBodyParser({ mapParams: R.chance(0.5) })));
  }
  if (R.chance(0.1)) use.push(() => server.use(P.jsonp()));
  if (R.chance(0.3)) use.push(() => server.use(P.gzipResponse()));
  if (R.chance(0.45)) use.push(() => server.use(P.requestLogger(R.chance(0.4) ? { headers: ['x-request-id', 'user-agent'] } : {})));
  if (R.chance(0.2)) use.push(() => server.use(P.fullResponse()));
  if (R.chance(0.15)) use.push(() => server.use(P.conditionalRequest()));
  if (R.chance(0.1)) {
    use.push(() => server.use(P.requestExpiry(R.chance(0.5) ? { absoluteHeader: 'x-request-expiry-time' }
      : { startHeader: 'x-request-start-time', timeoutHeader: 'x-request-timeout' })));
  }
  // throttle: needs the username from authorizationParser when keyed on it
  const throttle = R.chance(0.4);
  const thrKey = R.pick(['ip', 'ip', 'ip', 'xff', 'username']);
  const authFirst = hasAuth || (throttle && thrKey === 'username');
  if (authFirst) use.push(() => server.use(P.authorizationParser()));
  if (R.chance(0.12)) use.push(() => server.use(P.inflightRequestThrottle({ limit: R.pick([0, 1, 1, 2]), server })));
  if (R.chance(0.3)) {
    use.push(() => server.use(named('haltMarked', (req, res, next) => {
      if (req.headers['x-halt']) { res.send(202, { halted: true }); return next(false); }
      return next();
    })));
  }
  if (R.chance(0.25)) {
    use.push(() => server.use(named('failMarked', (req, res, next) => {
      if (req.headers['x-fail']) return next(new errors.ServiceUnavailableError('maintenance window'));
      return next();
    })));
  }
  if (R.chance(0.15)) {
    use.push(() => server.use(async function auditTrail(req) {
      // an async middleware that resolves with a value: restify discards it
      await null;
      return req.headers['x-trace'] ? { traced: true } : undefined;
    }));
  }
  if (R.chance(0.2)) {
    use.push(() => server.use(named('appLog', (req, res, next) => {
      req.log.debug({ path: req.path() }, 'app: handling %s', req.path());
      next();
    })));
  }
  const ordered = R.shuffle(use);
  for (const f of ordered) f();
  if (throttle) {
    const to = { burst: R.int(1, 5), rate: R.pick([0.5, 1, 2, 10]), setHeaders: R.chance(0.5) };
    to[thrKey] = true;
    if (thrKey === 'username' && R.chance(0.5)) to.overrides = { admin: { burst: 0, rate: 0 }, bob: { burst: 10, rate: 10 } };
    server.use(P.throttle(to));
  }

  // routes
  const routeKinds = R.sample(['items', 'items', 'text', 'stream', 'redirect', 'boom', 'async', 'stop', 'jump', 'versions',
    'regex', 'static', 'staticFiles', 'slow', 'nothing', 'xml', 'negotiate', 'auth', 'form', 'upload', 'errors', 'head',
    'applog'], R.int(4, 12));
  const add = (m, p, kind) => paths.push([m, p, kind || null]);
  add('GET', '/');
  server.get('/', (req, res, next) => { res.send({ app: server.name, ok: true }); next(); });

  for (const k of new Set(routeKinds)) {
    switch (k) {
      case 'items': {
        const checkId = named('checkId', (req, res, next) => {
          if (!/^\d+$/.test(req.params.id)) return next(new errors.BadRequestError('id %s is not a number', req.params.id));
          return next();
        });
        server.get({ name: 'listItems', path: '/items' }, (req, res, next) => { res.send(ITEMS); next(); });
        server.get('/items/:id', checkId, (req, res, next) => {
          const it = ITEMS.find((x) => String(x.id) === req.params.id);
          if (!it) return next(new errors.NotFoundError('item %s not found', req.params.id));
          res.json(it);
          return next();
        });
        server.post('/items', (req, res, next) => {
          if (!req.body || typeof req.body !== 'object') return next(new errors.UnprocessableEntityError('no item in body'));
          res.send(201, Object.assign({ id: 4 }, req.body));
          return next();
        });
        server.put('/items/:id', checkId, (req, res, next) => { res.send(req.body || {}); next(); });
        server.del('/items/:id', checkId, (req, res, next) => { res.send(204); next(); });
        add('GET', '/items'); add('GET', '/items/1'); add('GET', '/items/9'); add('GET', '/items/abc');
        add('POST', '/items', 'json'); add('POST', '/items', 'any'); add('PUT', '/items/2', 'json'); add('DELETE', '/items/3');
        add('PATCH', '/items/1', 'json'); add('GET', '/items/'); add('GET', '/ITEMS'); add('GET', '//items//1');
        break;
      }
      case 'text':
        server.get('/text', (req, res, next) => { res.setHeader('content-type', 'text/plain'); res.send('plain text\n'); next(); });
        server.get('/raw', (req, res, next) => { res.sendRaw(200, Buffer.from('raw bytes'), { 'Content-Type': 'application/octet-stream' }); next(); });
        add('GET', '/text'); add('GET', '/raw');
        break;
      case 'stream':
        server.get('/download', (req, res, next) => {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          const s = fs.createReadStream(path.join(PUB, req.query && req.query.missing ? 'nope.txt' : 'big.txt'));
          s.on('error', () => res.end());
          s.pipe(res);
          s.on('end', () => next());
        });
        add('GET', '/download'); add('GET', '/download?missing=1');
        break;
      case 'redirect': {
        const code = R.pick([301, 302, 307]);
        server.get('/old', (req, res, next) => res.redirect(code, '/', next));
        server.get('/moved', (req, res, next) => res.redirect({ pathname: '/items', permanent: true, query: { from: 'moved' } }, next));
        add('GET', '/old'); add('GET', '/moved');
        break;
      }
      case 'boom': {
        server.get('/boom', named('explode', (req, res, next) => { throw new Error('handler exploded'); }));
        server.get('/boom-later', named('explodeLater', (req, res, next) => {
          setTimeout(() => { if (req.headers['x-late-throw']) throw new TypeError('late failure'); res.send('survived'); next(); }, 2);
        }));
        server.get('/throw-string', named('throwString', (req, res, next) => { throw 'not an error'; })); // eslint-disable-line no-throw-literal
        add('GET', '/boom'); add('GET', '/boom-later'); add('GET', '/throw-string');
        break;
      }
      case 'async':
        server.get('/async/ok', async (req, res) => { await sleep(1); res.send({ async: true }); });
        server.get('/async/value', async (req, res) => { res.send('done'); return 'ignored value'; });
        server.get('/async/fail', async () => { await null; throw new errors.ConflictError('async conflict'); });
        server.get('/async/reject', async () => { await null; throw 'plain rejection'; }); // eslint-disable-line no-throw-literal
        server.get('/async/forgot', async () => { await null; return { answered: false }; });
        add('GET', '/async/ok'); add('GET', '/async/value'); add('GET', '/async/fail'); add('GET', '/async/reject'); add('GET', '/async/forgot');
        break;
      case 'stop':
        server.get('/stop', (req, res, next) => { res.send({ stopped: true }); return next(false); }, (req, res, next) => { throw new Error('never'); });
        server.get('/chain', named('one', (req, res, next) => next()), named('two', (req, res, next) => {
          if (req.query && req.query.err) return next(new errors.ImATeapotError('short and stout'));
          res.send('chain done');
          return next();
        }));
        add('GET', '/stop'); add('GET', '/chain'); add('GET', '/chain?err=1');
        break;
      case 'jump':
        server.get({ name: 'target', path: '/target' }, (req, res, next) => { res.send('target'); next(); });
        server.get('/jump', (req, res, next) => next('target'));
        add('GET', '/jump'); add('GET', '/target');
        break;
      case 'versions':
        server.get('/greeting', P.conditionalHandler([
          { version: '1.0.0', handler: (req, res, next) => { res.send({ hello: 'v1' }); next(); } },
          { version: ['2.0.0', '2.1.0'], handler: (req, res, next) => { res.send({ hello: 'v2', v: req.matchedVersion() }); next(); } },
        ]));
        server.get('/report', P.conditionalHandler([
          { contentType: 'application/json', handler: (req, res, next) => { res.send({ report: 1 }); next(); } },
          { contentType: 'text/csv', version: '1.0.0', handler: (req, res, next) => { res.setHeader('content-type', 'text/csv'); res.send([{ a: 1, b: 2 }]); next(); } },
        ]));
        add('GET', '/greeting', 'version'); add('GET', '/greeting', 'version'); add('GET', '/report', 'accept');
        break;
      case 'regex':
        server.get('/files/:name(^\\w+\\.txt$)', (req, res, next) => { res.send({ file: req.params.name }); next(); });
        server.get('/users/:uid/posts/:pid', (req, res, next) => { res.send(req.params); next(); });
        add('GET', '/files/notes.txt'); add('GET', '/files/notes.exe'); add('GET', '/users/ann/posts/12');
        add('GET', '/users/a-very-long-user-name-here/posts/1');
        break;
      case 'static':
        server.get('/public/*', P.serveStatic({ directory: TMP, default: 'index.html', maxAge: R.pick([0, 60]), gzip: R.chance(0.3) }));
        add('GET', '/public/index.html'); add('GET', '/public/app.js'); add('GET', '/public/docs/'); add('GET', '/public/missing.png');
        add('GET', '/public/empty/'); add('GET', '/public/../gen.js');
        break;
      case 'staticFiles':
        server.get('/assets/*', P.serveStaticFiles(PUB, { maxAge: 1000, etag: R.chance(0.7) }));
        add('GET', '/assets/data.json'); add('GET', '/assets/docs/guide.txt'); add('GET', '/assets/none.css'); add('GET', '/assets/docs');
        break;
      case 'slow':
        server.get('/slow', (req, res, next) => setTimeout(() => { res.send({ slow: true }); next(); }, 30 + (req.url.length % 5) * 15));
        add('GET', '/slow'); add('GET', '/slow', 'abort');
        break;
      case 'nothing':
        server.get('/forgot', named('forgetful', (req, res, next) => next()));
        add('GET', '/forgot');
        break;
      case 'xml':
        server.get('/doc', (req, res, next) => { res.setHeader('content-type', 'application/xml'); res.send(req.query && req.query.str ? 'just text' : { a: 1, b: 'two' }); next(); });
        add('GET', '/doc'); add('GET', '/doc?str=1');
        break;
      case 'negotiate':
        server.get('/thing', (req, res, next) => { res.send(req.headers['x-raw'] ? Buffer.from('bytes') : 'some words'); next(); });
        server.get('/thing.json', (req, res, next) => { res.send({ thing: true }); next(); });
        add('GET', '/thing', 'accept'); add('GET', '/thing', 'accept'); add('GET', '/thing.json', 'accept');
        break;
      case 'auth':
        server.get('/me', (req, res, next) => {
          if (!req.authorization || !req.authorization.basic) return next(new errors.UnauthorizedError('credentials required'));
          if (req.authorization.basic.password !== 'secret') return next(new errors.InvalidCredentialsError('bad password for %s', req.username));
          res.send({ user: req.username });
          return next();
        });
        add('GET', '/me', 'auth'); add('GET', '/me', 'auth'); add('GET', '/me');
        break;
      case 'form':
        server.post('/signup', (req, res, next) => {
          const b = req.body || {};
          if (!b.user) return next(new errors.MissingParameterError('user is required'));
          res.send(201, { created: b.user });
          return next();
        });
        add('POST', '/signup', 'form'); add('POST', '/signup', 'form'); add('POST', '/signup', 'json');
        break;
      case 'upload':
        server.post('/upload', (req, res, next) => { res.send({ files: Object.keys(req.files || {}), fields: Object.keys(req.body || {}) }); next(); });
        add('POST', '/upload', 'multipart'); add('POST', '/upload', 'big');
        break;
      case 'errors':
        server.get('/status/:code', (req, res, next) => {
          const code = Number(req.params.code);
          if (code === 418) { res.send(418, { teapot: true }); return next(); }
          if (code === 999) return next(new Error('unknown code'));
          return next(errors.makeErrFromCode(code, `status ${code} requested`));
        });
        for (const c of [400, 403, 404, 409, 410, 418, 429, 500, 503, 999]) if (R.chance(0.4)) add('GET', `/status/${c}`);
        add('GET', '/status/410');
        break;
      case 'head':
        server.head('/items-count', (req, res, next) => { res.setHeader('x-count', ITEMS.length); res.send(200); next(); });
        server.opts('/items-count', (req, res, next) => { res.setHeader('Allow', 'HEAD, OPTIONS'); res.send(204); next(); });
        add('HEAD', '/items-count'); add('OPTIONS', '/items-count'); add('GET', '/items-count');
        break;
      case 'applog':
        server.get('/audit-me', (req, res, next) => {
          req.log.info({ who: req.headers['user-agent'] }, 'app: audit-me called');
          res.send({ logged: true });
          next();
        });
        add('GET', '/audit-me');
        break;
      default:
        break;
    }
  }
  // paths no route serves
  add('GET', '/nope'); add('POST', '/nope', 'json'); add('OPTIONS', '*'); add('DELETE', '/');

  // error events
  if (R.chance(0.35)) {
    server.on('restifyError', (req, res, err, cb) => {
      // some applications add fields to every error body (a thrown string has none)
      if (err instanceof Error) err.toJSON = function toJSON() { return { code: err.name, message: err.message, app: server.name }; };
      return cb();
    });
  }
  if (R.chance(0.2)) {
    server.on('NotFound', (req, res, err, cb) => {
      if (req.url.startsWith('/nope')) { res.send(404, { hint: 'try /items' }); }
      return cb();
    });
  }
  if (R.chance(0.15)) server.on('InternalServer', (req, res, err, cb) => cb());
  if (uncaught && R.chance(0.35)) {
    server.on('uncaughtException', (req, res, route, err, cb) => {
      if (!res.headersSent) res.send(500, { crashed: String((err && err.message) || err) });
      if (typeof cb === 'function') cb();
    });
  }

  // audit loggers
  if (R.chance(0.55)) server.on('after', P.auditLogger({ log: logger, event: 'after', server, body: R.chance(0.3) }));
  if (R.chance(0.15)) server.on('pre', P.auditLogger({ log: logger, event: 'pre' }));
  if (R.chance(0.15)) server.on('routed', P.auditLogger({ log: logger, event: 'routed' }));
  if (R.chance(0.2)) server.on('after', P.metrics({ server }, noop));
  return { server, paths, hasAuth, throttle };
}

// ---------------------------------------------------------------------------
// Requests.
const ACCEPTS = ['application/json', 'text/plain', 'text/html', 'application/xml', 'text/csv', 'image/png',
  'application/octet-stream', '*/*', 'application/json;q=0.5, text/plain', 'application/nope'];
const VERSIONS = ['1.0.0', '~2', '^2.1.0', '3.x', 'banana', '*'];

function bodyFor(R, kind) {
  switch (kind) {
    case 'json': return R.chance(0.85) ? ['application/json', JSON.stringify({ name: R.pick(['ann', 'bob']), qty: R.int(1, 9) })]
      : ['application/json', R.pick(['{"name": "ann",', '{bad json}', '[1, 2'])];
    case 'form': return R.chance(0.85) ? ['application/x-www-form-urlencoded', `user=${R.pick(['ann', 'bob', ''])}&plan=${R.pick(['free', 'pro'])}&tags[]=a&tags[]=b`]
      : ['application/x-www-form-urlencoded', R.pick(['%E0%A4%A=1', 'a=%zz&b'])];
    case 'multipart': {
      const b = '----pmragboundary' + R.int(100, 999);
      const body = `--${b}\r\nContent-Disposition: form-data; name="title"\r\n\r\nreport\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="file"; filename="r.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(R.int(10, 300))}\r\n--${b}--\r\n`;
      return [`multipart/form-data; boundary=${b}`, body];
    }
    case 'big': return ['application/json', JSON.stringify({ blob: 'y'.repeat(R.pick([300, 3000, 70000])) })];
    case 'any': return R.pick([['text/plain', 'hello'], ['application/x-yaml', 'a: 1'], ['application/json', '{"x":1}'],
      ['text/csv', 'a,b\n1,2'], [null, 'no type']]);
    default: return null;
  }
}

function plan(R, paths, info) {
  let [method, p, kind] = R.chance(0.9) ? R.pick(paths)
    : [R.pick(['GET', 'POST', 'PUT']), R.pick(['/x/y', '/items/1/extra', '/public', '/%zz', '/legacy/items', '/a'.repeat(R.int(3, 30))]), null];
  const headers = {};
  if (kind === 'accept' || R.chance(0.2)) headers.accept = R.pick(ACCEPTS);
  if (kind === 'version' || R.chance(0.1)) headers['accept-version'] = R.pick(VERSIONS);
  if (R.chance(0.25)) headers['accept-encoding'] = R.pick(['gzip', 'gzip, deflate', 'identity', 'br']);
  if (R.chance(0.15)) {
    headers.date = R.pick([new Date().toUTCString(), new Date(Date.now() - 600000).toUTCString(), 'not a date', new Date(Date.now() + 600000).toUTCString()]);
  }
  if (kind === 'auth' || (info.hasAuth && R.chance(0.3)) || (info.throttle && R.chance(0.3))) {
    headers.authorization = R.pick([`Basic ${Buffer.from('bob:secret').toString('base64')}`, `Basic ${Buffer.from('admin:guess').toString('base64')}`,
      `Basic ${Buffer.from('ann:secret').toString('base64')}`, 'Basic !!!', 'Bearer abc.def', 'Broken', 'Signature keyId="k"']);
  }
  if (R.chance(0.15)) headers['x-forwarded-for'] = R.pick(['10.0.0.1', '10.0.0.2, 192.168.1.1', '203.0.113.9']);
  if (R.chance(0.1)) headers['if-none-match'] = R.pick(['*', '"abc"', 'W/"123"']);
  if (R.chance(0.05)) headers['if-match'] = '"nope"';
  if (R.chance(0.05)) headers['if-modified-since'] = new Date(Date.now() + 3600000).toUTCString();
  if (R.chance(0.06)) headers['x-request-expiry-time'] = String(Date.now() + R.pick([-1000, 60000]));
  if (R.chance(0.05)) { headers['x-request-start-time'] = String(Date.now() - 5000); headers['x-request-timeout'] = R.pick(['100', '60000']); }
  for (const h of ['x-drop', 'x-halt', 'x-fail', 'x-blocked', 'x-trace', 'x-late-throw', 'x-raw']) if (R.chance(0.05)) headers[h] = '1';
  if (R.chance(0.15)) headers['x-request-id'] = `req-${R.int(1000, 9999)}`;
  if (method === 'OPTIONS' && R.chance(0.6)) { headers.origin = 'http://example.test'; headers['access-control-request-method'] = 'PUT'; }
  if (R.chance(0.1) && !p.includes('?')) p += R.pick(['?a=1&b=2', '?list=1&list=2', '?q[x]=1', '?callback=cb', '?str=1', '?err=1']);
  let body = null;
  const bk = kind === 'json' || kind === 'form' || kind === 'multipart' || kind === 'big' || kind === 'any' ? kind
    : (method === 'POST' || method === 'PUT' || method === 'PATCH') ? R.pick(['json', 'form', 'any']) : null;
  if (bk) body = bodyFor(R, bk);
  else if (method === 'GET' && R.chance(0.03)) body = bodyFor(R, 'json');
  if (body && body[0]) headers['content-type'] = body[0];
  return { method, path: p, headers, body: body ? body[1] : null,
    abort: kind === 'abort' || R.chance(0.04) ? R.int(2, 15) : 0,
    slowBody: body && R.chance(0.1) ? R.int(5, 30) : 0,
    wrongLength: body && R.chance(0.03) };
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const t0 = Date.now();
  log.caseId = ck;
  const appName = R.pick(APP_NAMES);
  const { kind, logger } = makeLogger(R, ck, appName);
  let srv = null;
  const agents = [];
  try {
    const built = buildServer(R, logger, appName);
    srv = built.server;
    await new Promise((resolve, reject) => { srv.once('error', reject); srv.listen(0, '127.0.0.1', resolve); });
    const port = srv.address().port;
    const agent = new http.Agent({ keepAlive: R.chance(0.8), maxSockets: 1 });
    const wide = new http.Agent({ keepAlive: true, maxSockets: 4 });
    agents.push(agent, wide);
    const steps = R.int(3, 15);
    for (let k = 0; k < steps; k++) {
      if (R.chance(0.18)) {
        const n = R.int(2, 4);
        const qs = [];
        for (let j = 0; j < n; j++) qs.push(R.chance(0.5) && qs.length ? qs[0] : plan(R, built.paths, built));
        await Promise.all(qs.map((q) => cap.httpRequest(port, wide, q)));
      } else {
        await cap.httpRequest(port, agent, plan(R, built.paths, built));
      }
      if (R.chance(0.1)) await sleep(R.pick([5, 30]));
    }
    // let answers still being written (slow handlers, aborted requests) finish
    for (let w = 0; w < 25 && srv.inflightRequests() > 0; w++) await sleep(10);
  } catch (e) {
    if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${e.stack}\n`);
  }
  for (const a of agents) a.destroy();
  if (srv) {
    await new Promise((resolve) => {
      try { srv.close(() => resolve()); } catch (e) { resolve(); }
      if (srv.server && srv.server.closeAllConnections) srv.server.closeAllConnections();
      setTimeout(resolve, 100);
    });
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${kind} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
}

async function main() {
  const t0 = Date.now();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s (${foreign} records of earlier cases, ` +
    `${outside} emitted outside restify/lib dropped` + (escaped ? `, ${escaped} exceptions escaped restify` : '') + ')\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
