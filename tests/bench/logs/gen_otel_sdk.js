#!/usr/bin/env node
'use strict';
/*
 * Event log of the OpenTelemetry JS SDK (npm @opentelemetry/*, 1.30.1 / 0.57.2
 * line, api 1.9.0), indexed as its TypeScript sources.
 *
 *   node gen_otel_sdk.js --repo                       # prints the dir to index
 *   node gen_otel_sdk.js --out .deps/logs/otel-sdk.csv.gz [--cases 1500] [--seed 1] [--deps DIR]
 *
 * Indexed code: the npm packages ship compiled CommonJS (`build/src/*.js`)
 * with `.js.map` source maps whose `sourcesContent` holds the original
 * `src/*.ts`.  `--repo` writes those sources to
 * `<deps>/src-ts/<package>/src/...`, each package's `package.json` beside
 * them (idempotent; package = the name without the `@opentelemetry/` scope)
 * and prints `<deps>/src-ts`.  Truth paths are
 * `src-ts/<package>/src/....ts`; compiled call sites (file, line, column) are
 * mapped to the TypeScript (file, line) through the maps (`_sourcemap.js`, an
 * own VLQ decoder).  Qualnames come from the TypeScript parser (npm
 * `typescript`, pinned beside the SDK) run over the extracted .ts files
 * (`_qualname.js`).
 *
 * Logging: the SDK logs through the `diag` API of @opentelemetry/api
 * (`diag.warn(...)`, `api.diag.debug(...)`, component loggers from
 * `diag.createComponentLogger({namespace})` held in `this._diag` /
 * `this._diagLogger`).  This generator installs its own DiagLogger with
 * `diag.setLogger(logger, {logLevel: DiagLogLevel.ALL})`.  A record's
 * activity is what the default `DiagConsoleLogger` prints for it: the
 * arguments the DiagLogger method receives, rendered with
 * `util.format(...args)` (the console's formatting with colours off); for a
 * component logger the api prepends the namespace as the first argument, so
 * the text is `<namespace> <message> <args...>` and the message's own `%s`
 * are not substituted (exactly as the console shows it).  level = the diag
 * method name upper-cased (VERBOSE/DEBUG/INFO/WARN/ERROR); logger = the
 * component namespace, or `diag` for the plain `diag.*` calls.
 * Emitter: the first stack frame after the api's diag machinery
 * (`api/build/src/api/diag.js`, `api/build/src/diag/**`: the global proxy,
 * the level filter, the component logger).  core's `globalErrorHandler(ex)`
 * and the default `loggingErrorHandler` (it only does
 * `diag.error(stringifyException(ex))`) are pure forwarding wrappers: their
 * frames are skipped too and the caller of `globalErrorHandler` is the emitter
 * with code.wrapped=1.
 *
 * A case is one traced unit of work with its own seeded PRNG: a tracer
 * provider (Basic or Node) with varied span processors (simple / batch with
 * tiny queues that drop, batch size > queue size, several processors),
 * samplers (always on/off, trace-id ratio, parent-based, parent-based without
 * a root), span limits, resources (async attributes that resolve or reject,
 * detectors), exporters (OTLP/HTTP JSON to a local collector, in-memory,
 * exporters that fail, throw or never answer), optional global registration
 * (twice: duplicate registration), then 1-4 operations: span trees with
 * attributes beyond limits, invalid keys/values, events beyond limits, links,
 * bad status messages, odd exceptions, spans ended twice or before they
 * started, updates after end, suppressed tracing, W3C traceparent / baggage
 * inject/extract (valid and invalid headers, a throwing propagator in a
 * composite), force flush, shutdown (sometimes twice), spans after shutdown.
 * Some cases are metric cases (MeterProvider with periodic readers to the
 * collector or in memory, views, instruments with conflicting definitions,
 * invalid names, negative / non-number / fractional values, throwing
 * observable callbacks, exponential histograms, cardinality limits, shutdown
 * twice) and some are HTTP cases (instrumentation-http enabled for the case,
 * requests to a local app server with valid/invalid traceparent headers,
 * throwing ignore hooks, refused ports, then disabled).  A quarter of the
 * cases run under an OTEL_* environment scenario that fits the case (sampler
 * and ratio, propagators, exporter name, OTLP timeouts / compression /
 * endpoints / headers, metric temporality, resource attributes, limits; valid
 * and invalid values) and then build what reads it.  Each case runs in its
 * own AsyncLocalStorage context (records from async work of an earlier case
 * are dropped) and with Math.random seeded per case (the SDK draws trace and
 * span ids, hence ratio-sampling decisions, from it).
 *
 * The OTLP/HTTP collector runs in a worker thread (so the http
 * instrumentation of the main thread does not see it) on 127.0.0.1; the URL
 * path selects its behaviour: 200 `{}`, 200 with partial success, 200 with an
 * empty or non-JSON body, 400, 500, 429 / 503 with `Retry-After: 0` for the
 * first N requests of a key, 503 without Retry-After, slow answers beyond the
 * exporter timeout, connections reset; plus a closed port.
 */
const fs = require('fs');
const path = require('path');
const util = require('util');
const { Worker } = require('worker_threads');
const { AsyncLocalStorage } = require('async_hooks');

const PACKAGES = ['api', 'core', 'resources', 'sdk-trace-base', 'sdk-trace-node', 'sdk-metrics',
  'context-async-hooks', 'propagator-b3', 'propagator-jaeger', 'otlp-exporter-base',
  'otlp-transformer', 'exporter-trace-otlp-http', 'exporter-metrics-otlp-http',
  'instrumentation', 'instrumentation-http'];

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'otel-sdk', 1500);
}

// ---------------------------------------------------------------------------
// Indexed sources: TypeScript out of the source maps' sourcesContent.
function pkgDir(deps, pkg) {
  return path.join(deps, 'node_modules', '@opentelemetry', pkg);
}

// Writes a file only when its content differs: --repo runs before every
// evaluation and leaves a tree that has not changed as it was.
function writeIfChanged(file, content) {
  let same = false;
  try { same = fs.readFileSync(file, 'utf8') === content; } catch (err) { same = false; }
  if (!same) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function prepareSources(deps) {
  const sm = require('./_sourcemap');
  const outRoot = path.join(deps, 'src-ts');
  for (const pkg of PACKAGES) {
    const pd = pkgDir(deps, pkg);
    const build = path.join(pd, 'build', 'src');
    if (!fs.existsSync(build)) throw new Error(`missing ${build}: run npm ci in ${deps}`);
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) { walk(p); continue; }
        if (!e.name.endsWith('.js')) continue;
        for (const s of sm.sourcesOf(p)) {
          const rel = path.relative(pd, s.source);
          if (s.content == null || !rel.startsWith('src' + path.sep)) continue;
          writeIfChanged(path.join(outRoot, pkg, rel), s.content);
        }
      }
    };
    walk(build);
    // The manifest beside the sources, as in the SDK's own repository: it
    // names the package that other packages import it by.
    writeIfChanged(path.join(outRoot, pkg, 'package.json'),
      fs.readFileSync(path.join(pd, 'package.json'), 'utf8'));
  }
  return outRoot;
}

const args = parseArgs(process.argv);
if (args.repo) {
  process.stdout.write(prepareSources(args.deps) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_otel_sdk.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// No OTEL_* settings from the caller's environment.
for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];

const SRC_TS = prepareSources(args.deps);
const cap = require('./_capture');
const sm = require('./_sourcemap');
const { QualnameIndex } = require('./_qualname');
const NM = path.join(args.deps, 'node_modules');
const req = (m) => require(path.join(NM, m));

const ts = req('typescript');
const qn = new QualnameIndex(ts);
const PKG_OF_DIR = PACKAGES.map((p) => [fs.realpathSync(pkgDir(args.deps, p)) + path.sep, p]);

/** compiled .js frame -> the .ts file under src-ts and its line */
function mapLocation(file, line, column) {
  if (!file.endsWith('.js')) return null;
  for (const [dir, pkg] of PKG_OF_DIR) {
    if (!file.startsWith(dir)) continue;
    const pos = sm.originalPosition(file, line, column);
    if (!pos) return null;
    const rel = path.relative(dir, pos.source);
    return { file: path.join(SRC_TS, pkg, rel), line: pos.line, column: pos.column };
  }
  return null;
}

const API_DIR = fs.realpathSync(pkgDir(args.deps, 'api'));
const COMPONENT_LOGGER = path.join(API_DIR, 'build', 'src', 'diag', 'ComponentLogger.js');
const log = new cap.EventLog(args.out, {
  indexDir: SRC_TS,
  machinery: [path.join(API_DIR, 'build', 'src', 'api', 'diag.js'), path.join(API_DIR, 'build', 'src', 'diag')],
  wrappers: [['src-ts/core/src/common/global-error-handler.ts', '*'],
    ['src-ts/core/src/common/logging-error-handler.ts', '*']],
  mapLocation,
  qualname: (file, line) => {
    if (!file.endsWith('.ts')) return null;
    const [q, f] = qn.lookup(file, line);
    return { function: f, qualname: q };
  },
});

// ---------------------------------------------------------------------------
// The DiagLogger under which everything is captured.  Each case runs inside
// caseStore.run(caseId): records made from async work that an earlier case
// started are dropped; records from contexts no case created (the app
// server's incoming connections) belong to the running case.
const caseStore = new AsyncLocalStorage();
function viaComponentLogger(skipFn) {
  const holder = {};
  const prevPrep = Error.prepareStackTrace;
  const prevLimit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_e, sites) => sites;
  Error.stackTraceLimit = 3;
  try {
    Error.captureStackTrace(holder, skipFn);
    const s = holder.stack || [];
    return s.some((site) => site.getFileName() === COMPONENT_LOGGER);
  } finally {
    Error.prepareStackTrace = prevPrep;
    Error.stackTraceLimit = prevLimit;
  }
}

function diagMethod(level) {
  const LEVEL = level.toUpperCase();
  const fn = function capturedDiag(...a) {
    if (log.caseId === null) return;
    // a straggler of an earlier case (timer, late export) is not this case's event
    const owner = caseStore.getStore();
    if (owner !== undefined && owner !== log.caseId) return;
    let msg;
    try { msg = util.format(...a); } catch (e) { msg = String(a[0]); }
    const logger = viaComponentLogger(fn) ? String(a[0]) : 'diag';
    log.record(msg, LEVEL, logger, fn);
  };
  return fn;
}
const diagLogger = {};
for (const l of ['verbose', 'debug', 'info', 'warn', 'error']) diagLogger[l] = diagMethod(l);

const api = req('@opentelemetry/api');
api.diag.setLogger(diagLogger, { logLevel: api.DiagLogLevel.ALL, suppressOverrideMessage: true });

// instrumentation-http must be enabled before `http` is first required here.
const { HttpInstrumentation } = req('@opentelemetry/instrumentation-http');
const httpInst = new HttpInstrumentation({});
httpInst.enable();
const http = require('http');
httpInst.disable();

const core = req('@opentelemetry/core');
const { Resource, detectResources, detectResourcesSync, envDetector, envDetectorSync, processDetectorSync, hostDetectorSync } =
  req('@opentelemetry/resources');
const tb = req('@opentelemetry/sdk-trace-base');
const { NodeTracerProvider } = req('@opentelemetry/sdk-trace-node');
const metrics = req('@opentelemetry/sdk-metrics');
const { OTLPTraceExporter } = req('@opentelemetry/exporter-trace-otlp-http');
const { OTLPMetricExporter } = req('@opentelemetry/exporter-metrics-otlp-http');
const { B3Propagator, B3InjectEncoding } = req('@opentelemetry/propagator-b3');
const { JaegerPropagator } = req('@opentelemetry/propagator-jaeger');

process.on('unhandledRejection', () => {});

// ---------------------------------------------------------------------------
// Servers: OTLP collector (worker thread) and an app server (main thread,
// seen by the http instrumentation while it is enabled).
const COLLECTOR_SRC = `
const { parentPort } = require('worker_threads');
const http = require('http');
const counts = new Map();
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    // /<behaviour>/<arg>/<key>/v1/<signal>
    const p = req.url.split('/');
    const b = p[1] || 'ok', arg = parseInt(p[2] || '0', 10) || 0, key = p[3] || '';
    const n = (counts.get(key) || 0) + 1;
    counts.set(key, n);
    const json = (code, body, hdr) => {
      res.writeHead(code, Object.assign({ 'content-type': 'application/json' }, hdr || {}));
      res.end(body);
    };
    switch (b) {
      case 'ok': return json(200, '{}');
      case 'partial': return json(200, JSON.stringify({ partialSuccess: { rejectedSpans: String(arg || 1), rejectedDataPoints: String(arg || 1), errorMessage: 'quota exceeded for tenant ' + key } }));
      case 'partial0': return json(200, '{"partialSuccess":{}}');
      case 'empty': return json(200, '');
      case 'garbage': return json(200, '<html>not otlp</html>');
      case 'bad': return json(400, '{"code":3,"message":"invalid request"}');
      case 'e500': return json(500, 'internal error');
      case 'e404': return json(404, 'no such endpoint');
      case 'throttle': return n <= arg ? json(429, '', { 'retry-after': '0' }) : json(200, '{}');
      case 'flaky': return n <= arg ? json(503, '', { 'retry-after': '0' }) : json(200, '{}');
      case 'gateway': return n <= arg ? json(502, '', { 'retry-after': '0' }) : json(200, '{}');
      case 'unavail': return json(503, 'overloaded');
      case 'slow': return setTimeout(() => json(200, '{}'), arg);
      case 'reset': return req.socket.destroy();
      default: return json(200, '{}');
    }
  });
});
server.keepAliveTimeout = 200;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', (m) => { if (m === 'stop') { server.closeAllConnections(); server.close(() => process.exit(0)); } });
`;

function startCollector() {
  return new Promise((resolve, reject) => {
    const w = new Worker(COLLECTOR_SRC, { eval: true });
    w.once('message', (port) => resolve({ worker: w, port }));
    w.once('error', reject);
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = require('net').createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

let appServer = null;
let appPort = 0;
function startAppServer() {
  return new Promise((resolve) => {
    appServer = http.createServer((rq, rs) => {
      rq.on('data', () => {});
      rq.on('end', () => {
        const u = rq.url || '/';
        if (u.startsWith('/slow')) setTimeout(() => { rs.writeHead(200); rs.end('slow'); }, 30);
        else if (u.startsWith('/fail')) { rs.writeHead(500); rs.end('boom'); }
        else if (u.startsWith('/drop')) rq.socket.destroy();
        else { rs.writeHead(200, { 'content-type': 'text/plain' }); rs.end('ok'); }
      });
    });
    appServer.keepAliveTimeout = 100;
    appServer.listen(0, '127.0.0.1', () => { appPort = appServer.address().port; resolve(); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const settle = (p, ms) => Promise.race([Promise.resolve(p).catch(() => {}), sleep(ms)]);

// ---------------------------------------------------------------------------
// Case building blocks.
let COLLECTOR_PORT = 0;
let CLOSED_PORT = 0;

function collectorBehaviour(R, key) {
  const b = R.pick(['ok', 'ok', 'ok', 'ok', 'partial', 'partial', 'partial0', 'empty', 'garbage', 'bad',
    'e500', 'e404', 'throttle', 'flaky', 'gateway', 'unavail', 'slow', 'reset', 'closed']);
  let arg = 0;
  if (b === 'throttle' || b === 'flaky' || b === 'gateway') arg = R.int(1, 3);
  else if (b === 'slow') arg = R.pick([20, 400]);
  else if (b === 'partial') arg = R.int(1, 9);
  return { b, arg, key };
}

function collectorUrl(beh, signal) {
  if (beh.b === 'closed') return `http://127.0.0.1:${CLOSED_PORT}/v1/${signal}`;
  return `http://127.0.0.1:${COLLECTOR_PORT}/${beh.b}/${beh.arg}/${beh.key}/v1/${signal}`;
}

class FailingExporter {
  constructor(mode) { this.mode = mode; this.n = 0; }
  export(spans, cb) {
    this.n++;
    if (this.mode === 'throw') throw new Error(`exporter exploded on batch ${this.n}`);
    if (this.mode === 'fail') return cb({ code: core.ExportResultCode.FAILED, error: new Error(`backend rejected ${spans.length} spans`) });
    if (this.mode === 'failnoerr') return cb({ code: core.ExportResultCode.FAILED });
    if (this.mode === 'hang') return undefined;  // never calls back
    return setTimeout(() => cb({ code: core.ExportResultCode.SUCCESS }), 5);
  }
  shutdown() { return this.mode === 'badshutdown' ? Promise.reject(new Error('cannot shut down')) : Promise.resolve(); }
  forceFlush() { return this.mode === 'badflush' ? Promise.reject(new Error('flush refused')) : Promise.resolve(); }
}

class ThrowingPropagator {
  inject() { throw new Error('carrier is frozen'); }
  extract() { throw new Error('malformed carrier'); }
  fields() { return ['x-broken']; }
}

function makeSpanExporter(R, ck, created, otlp) {
  const kind = otlp ? 'otlp' : R.pick(['otlp', 'otlp', 'otlp', 'otlp', 'memory', 'memory', 'fail', 'failnoerr', 'throw', 'hang', 'slowok', 'badshutdown']);
  if (kind === 'otlp') {
    const beh = collectorBehaviour(R, ck + '-t' + created.length);
    const opts = { url: collectorUrl(beh, 'traces'), timeoutMillis: R.pick([150, 250, 1000]) };
    if (otlp && R.chance(0.5)) delete opts.url;  // from the environment
    if (otlp && R.chance(0.5)) delete opts.timeoutMillis;
    if (R.chance(0.2)) opts.headers = { 'x-tenant': 'acme', 'x-empty': undefined };
    if (R.chance(0.2)) opts.compression = R.pick(['gzip', 'none']);
    if (R.chance(0.1)) opts.metadata = { a: 1 };
    if (R.chance(0.15)) opts.concurrencyLimit = 1;
    const e = new OTLPTraceExporter(opts);
    created.push(e);
    return e;
  }
  if (kind === 'memory') return new tb.InMemorySpanExporter();
  return new FailingExporter(kind);
}

function makeProcessor(R, ck, created, otlp) {
  const exp = makeSpanExporter(R, ck, created, otlp);
  if (R.chance(0.4)) return new tb.SimpleSpanProcessor(exp);
  const cfg = {
    maxQueueSize: R.pick([1, 2, 3, 5, 20, 100]),
    maxExportBatchSize: R.pick([1, 2, 4, 10, 50]),
    scheduledDelayMillis: R.pick([1, 5, 20]),
    exportTimeoutMillis: R.pick([60, 200, 500]),
  };
  return new tb.BatchSpanProcessor(exp, cfg);
}

function makeSampler(R) {
  const k = R.pick(['none', 'none', 'on', 'off', 'ratio', 'parent', 'parent', 'parentnoroot', 'coreparent']);
  switch (k) {
    case 'on': return new tb.AlwaysOnSampler();
    case 'off': return new tb.AlwaysOffSampler();
    case 'ratio': return new tb.TraceIdRatioBasedSampler(R.pick([0, 0.3, 0.7, 1, 2, -1, NaN]));
    case 'parent': return new tb.ParentBasedSampler({
      root: R.pick([new tb.AlwaysOnSampler(), new tb.TraceIdRatioBasedSampler(0.5)]),
      remoteParentNotSampled: R.chance(0.5) ? new tb.AlwaysOnSampler() : undefined,
      localParentSampled: R.chance(0.3) ? new tb.AlwaysOffSampler() : undefined,
    });
    case 'parentnoroot': return new tb.ParentBasedSampler({});
    case 'coreparent': return new core.ParentBasedSampler(R.chance(0.5) ? {} : { root: new core.AlwaysOnSampler() });
    default: return undefined;
  }
}

async function makeResource(R, fromEnv) {
  const k = fromEnv ? R.pick(['envdetect', 'detectasync']) : R.pick(['none', 'none', 'plain', 'async', 'asyncfail', 'detect', 'detect', 'detectasync']);
  if (k === 'envdetect') return detectResourcesSync({ detectors: [envDetectorSync, processDetectorSync] });
  if (k === 'plain') return new Resource({ 'service.name': 'svc-' + R.int(1, 9), 'deployment.environment': R.pick(['dev', 'prod']) });
  if (k === 'async') {
    const r = new Resource({ 'service.name': 'async-svc' }, sleep(R.int(1, 10)).then(() => ({ 'host.id': 'h' + R.int(1, 99) })));
    if (R.chance(0.3)) void r.attributes;  // read before the async part settled
    return r;
  }
  if (k === 'asyncfail') {
    return new Resource({ 'service.name': 'flaky-resource' },
      sleep(R.int(1, 10)).then(() => { throw new Error('metadata endpoint unreachable'); }));
  }
  if (k === 'detect') {
    const dets = R.sample([envDetectorSync, processDetectorSync, hostDetectorSync,
      { detect() { throw new Error('cloud metadata timeout'); } }], R.int(1, 3));
    return detectResourcesSync({ detectors: dets });
  }
  if (k === 'detectasync') {  // the deprecated async detection
    return detectResources({ detectors: R.sample([envDetector, processDetectorSync,
      { async detect() { throw new Error('no instance metadata'); } }], R.int(1, 3)) });
  }
  return undefined;
}

// OTEL_* environment scenarios (about a quarter of the cases); the case then
// builds what reads that part of the environment.
const OTLP_ENV = {
  OTEL_EXPORTER_OTLP_TIMEOUT: ['abc', '-5', '0', '300'],
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: ['soon', '250'],
  OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: ['never', '250'],
  OTEL_EXPORTER_OTLP_COMPRESSION: ['zip', 'gzip', 'none', 'brotli'],
  OTEL_EXPORTER_OTLP_ENDPOINT: ['not a url', 'http://127.0.0.1:1', 'localhost:4318'],
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ['::bad::', 'http://127.0.0.1:1/v1/traces'],
  OTEL_EXPORTER_OTLP_HEADERS: ['x-a=1,x-b=2', 'broken-header', 'k=%zz'],
};

function setEnv(R, kind) {
  const env = {};
  const scen = R.chance(0.25)
    ? R.pick(kind === 'metrics' ? ['otlp', 'resource', 'temporality', 'temporality']
      : kind === 'http' ? ['otlp', 'propagators'] : ['sampler', 'sampler', 'propagators', 'exporter', 'otlp', 'resource', 'limits'])
    : null;
  if (scen === 'sampler') {
    env.OTEL_TRACES_SAMPLER = R.pick(['always_on', 'always_off', 'traceidratio', 'parentbased_traceidratio',
      'parentbased_always_on', 'parentbased_always_off', 'sometimes']);
    if (R.chance(0.8)) env.OTEL_TRACES_SAMPLER_ARG = R.pick(['', '0.25', 'half', '1.5', '-0.1']);
  } else if (scen === 'propagators') {
    env.OTEL_PROPAGATORS = R.pick(['tracecontext,baggage', 'b3', 'b3multi', 'jaeger', 'xray', 'tracecontext,ottrace', 'b3,jaeger,tracecontext', 'none']);
  } else if (scen === 'exporter') {
    env.OTEL_TRACES_EXPORTER = R.pick(['otlp', 'zipkin', 'none', 'console', 'jaeger']);
  } else if (scen === 'otlp') {
    for (const k of R.sample(Object.keys(OTLP_ENV), R.int(1, 3))) env[k] = R.pick(OTLP_ENV[k]);
  } else if (scen === 'resource') {
    env.OTEL_RESOURCE_ATTRIBUTES = R.pick(['service.version=1.2,team=core', 'bad attr=%%', 'k=' + 'x'.repeat(300), 'ok=1,=novalue']);
    if (R.chance(0.5)) env.OTEL_SERVICE_NAME = 'from-env';
  } else if (scen === 'limits') {
    env.OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT = R.pick(['1', '2', '0']);
    if (R.chance(0.5)) env.OTEL_SPAN_EVENT_COUNT_LIMIT = R.pick(['1', '0']);
    if (R.chance(0.5)) env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT = R.pick(['4', '-3']);
    if (R.chance(0.5)) env.OTEL_BSP_MAX_QUEUE_SIZE = '2';
  } else if (scen === 'temporality') {
    env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = R.pick(['delta', 'cumulative', 'lowmemory', 'sometimes', 'DELTA ']);
  }
  Object.assign(process.env, env);
  return { scen, keys: Object.keys(env) };
}

function randomAttrs(R, n) {
  const a = {};
  for (let i = 0; i < n; i++) {
    const k = R.pick(['http.method', 'db.system', 'user.id', 'retry', 'payload', 'tags', 'net.peer.port', '', 'weird', 'mixed', 'flag']);
    const v = R.pick(['GET', 'x'.repeat(R.int(1, 40)), R.int(0, 9999), true, [1, 2, 3], ['a', 'b'], { nested: 1 }, [1, 'two'], null, undefined, 3.5]);
    a[k] = v;
  }
  return a;
}

function makeTraceparent(R) {
  const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[R.int(0, 15)]).join('');
  return R.pick([
    `00-${hex(32)}-${hex(16)}-01`,
    `00-${hex(32)}-${hex(16)}-00`,
    `00-${'0'.repeat(32)}-${hex(16)}-01`,
    `ff-${hex(32)}-${hex(16)}-01`,
    `00-${hex(31)}-${hex(16)}-01`,
    'garbage',
    `01-${hex(32)}-${hex(16)}-09-extra`,
  ]);
}

async function spanTree(R, tracer, depth, parentCtx) {
  const opts = {};
  if (R.chance(0.3)) opts.attributes = randomAttrs(R, R.int(1, 5));
  if (R.chance(0.15)) opts.kind = R.pick([api.SpanKind.SERVER, api.SpanKind.CLIENT, api.SpanKind.PRODUCER]);
  if (R.chance(0.15)) {
    const lc = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    opts.links = [{ context: lc, attributes: R.chance(0.5) ? { '': 1, ok: 'y' } : { why: 'batch' } }];
  }
  if (R.chance(0.05)) opts.root = true;
  if (R.chance(0.05)) opts.startTime = Date.now() + 60000;
  const name = R.pick(['GET /users', 'db.query', 'cache.get', 'render', 'publish', 'auth.check']);
  const span = tracer.startSpan(name, opts, parentCtx);
  const ctx = api.trace.setSpan(parentCtx, span);
  const nAttr = R.int(0, 6);
  for (let i = 0; i < nAttr; i++) {
    const a = randomAttrs(R, 1);
    const k = Object.keys(a)[0];
    span.setAttribute(k, a[k]);
  }
  if (R.chance(0.2)) span.setAttributes(randomAttrs(R, R.int(2, 5)));
  const nEv = R.pick([0, 0, 1, 2, 5]);
  for (let i = 0; i < nEv; i++) span.addEvent('ev' + i, R.chance(0.3) ? { '': 'bad' } : { i });
  if (R.chance(0.15)) span.recordException(R.pick([new Error('db timeout'), 'plain string failure', { code: 'E42' }, 42, {}]));
  if (R.chance(0.15)) span.setStatus({ code: api.SpanStatusCode.ERROR, message: R.pick(['boom', { reason: 'obj' }, 404]) });
  if (depth > 0) {
    const kids = R.int(0, 2);
    for (let i = 0; i < kids; i++) {
      if (R.chance(0.3)) await sleep(R.int(0, 2));
      await api.context.with(ctx, () => spanTree(R, tracer, depth - 1, api.context.active()));
    }
  }
  if (R.chance(0.08)) span.end(Date.now() - 120000);
  else span.end();
  if (R.chance(0.12)) span.end();
  if (R.chance(0.08)) { span.setAttribute('late', 1); span.addEvent('late'); span.updateName('late'); }
  return span;
}

async function propagationOp(R, tracer, provider) {
  const W3C = new core.W3CTraceContextPropagator();
  const choices = [W3C, new core.W3CBaggagePropagator(),
    new B3Propagator({ injectEncoding: B3InjectEncoding.MULTI_HEADER }), new JaegerPropagator()];
  const props = R.sample(choices, R.int(1, 3));
  if (R.chance(0.4)) props.splice(R.int(0, props.length), 0, new ThrowingPropagator());
  const prop = new core.CompositePropagator({ propagators: props });
  const carrier = { traceparent: makeTraceparent(R) };
  if (R.chance(0.5)) carrier.tracestate = R.pick(['vendor=abc', 'bad state!!', 'a=1,b=2']);
  if (R.chance(0.4)) carrier.baggage = R.pick(['user=alice;meta', 'k=v,broken', '=novalue']);
  const ctx = prop.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
  const span = tracer.startSpan('remote-child', {}, ctx);
  const out = {};
  prop.inject(api.trace.setSpan(ctx, span), out, api.defaultTextMapSetter);
  if (R.chance(0.2)) api.propagation.createBaggage({ k: { value: 'v', metadata: R.chance(0.5) ? 7 : undefined } });
  if (R.chance(0.2)) api.baggageEntryMetadataFromString(R.pick([42, 'meta;x=y']));
  span.end();
  void provider;
}

async function suppressedOp(R, tracer) {
  const ctx = core.suppressTracing(api.context.active());
  const n = R.int(1, 2);
  for (let i = 0; i < n; i++) tracer.startSpan('suppressed-' + i, {}, ctx).end();
}

async function traceCase(R, ck, created, scen) {
  const cfg = {};
  const sampler = scen === 'sampler' ? undefined : makeSampler(R);
  if (sampler) cfg.sampler = sampler;
  const res = await makeResource(R, scen === 'resource');
  if (res) cfg.resource = res;
  if (R.chance(0.3)) {
    cfg.spanLimits = {};
    if (R.chance(0.6)) cfg.spanLimits.attributeCountLimit = R.pick([1, 2, 3]);
    if (R.chance(0.5)) cfg.spanLimits.attributeValueLengthLimit = R.pick([3, 8, -1]);
    if (R.chance(0.5)) cfg.spanLimits.eventCountLimit = R.pick([0, 1, 2]);
    if (R.chance(0.3)) cfg.spanLimits.linkCountLimit = 0;
  }
  if (R.chance(0.1)) cfg.generalLimits = { attributeValueLengthLimit: R.pick([5, -2]) };
  if (scen !== 'exporter' && !R.chance(0.05)) {
    cfg.spanProcessors = [];
    const np = R.pick([1, 1, 1, 2, 3]);
    for (let i = 0; i < np; i++) cfg.spanProcessors.push(makeProcessor(R, ck, created, scen === 'otlp'));
  }
  if (R.chance(0.1)) cfg.forceFlushTimeoutMillis = R.pick([20, 100]);
  const Provider = R.chance(0.5) ? NodeTracerProvider : tb.BasicTracerProvider;
  const provider = new Provider(cfg);
  if (R.chance(0.08)) provider.addSpanProcessor(makeProcessor(R, ck, created));
  let registered = false;
  if (scen === 'propagators' || R.chance(0.35)) {
    provider.register(R.chance(0.2) ? { propagator: new ThrowingPropagator() } : {});
    registered = true;
    if (R.chance(0.15)) provider.register();
  }
  const tracer = registered && R.chance(0.5) ? api.trace.getTracer('app', '1.0.0') : provider.getTracer('app', '1.0.0');
  const ops = R.int(1, 4);
  for (let i = 0; i < ops; i++) {
    const op = R.pick(['tree', 'tree', 'tree', 'tree', 'prop', 'suppressed', 'flush', 'burst', 'activeflush']);
    if (op === 'tree') await spanTree(R, tracer, R.int(0, 2), R.chance(0.5) ? api.ROOT_CONTEXT : api.context.active());
    else if (op === 'prop') await propagationOp(R, tracer, provider);
    else if (op === 'suppressed') await suppressedOp(R, tracer);
    else if (op === 'flush') await settle(provider.forceFlush(), 400);
    else if (op === 'activeflush') await settle(provider.activeSpanProcessor.forceFlush(), 400);
    else {
      const n = R.int(3, 12);
      for (let k = 0; k < n; k++) tracer.startSpan('burst-' + k).end();
    }
    if (R.chance(0.3)) await sleep(R.int(1, 15));
  }
  if (R.chance(0.6)) await settle(provider.forceFlush(), 500);
  await settle(provider.shutdown(), 700);
  if (R.chance(0.15)) await settle(provider.shutdown(), 200);
  if (R.chance(0.12)) tracer.startSpan('after-shutdown').end();
  if (registered) { api.trace.disable(); api.propagation.disable(); api.context.disable(); }
}

// -- metrics ----------------------------------------------------------------
function makeMetricExporter(R, ck, created, scen) {
  if (!scen && R.chance(0.35)) return new metrics.InMemoryMetricExporter(R.pick([metrics.AggregationTemporality.CUMULATIVE, metrics.AggregationTemporality.DELTA]));
  const beh = collectorBehaviour(R, ck + '-m' + created.length);
  const opts = { url: collectorUrl(beh, 'metrics'), timeoutMillis: R.pick([150, 300]) };
  if (scen !== 'temporality' && R.chance(0.4)) opts.temporalityPreference = R.pick(['delta', 'cumulative', 'lowmemory', 'weird']);
  if (scen === 'otlp' && R.chance(0.5)) delete opts.url;
  const e = new OTLPMetricExporter(opts);
  created.push(e);
  return e;
}

async function metricsCase(R, ck, created, scen) {
  const views = [];
  if (R.chance(0.4)) {
    const nv = R.int(1, 3);
    for (let i = 0; i < nv; i++) {
      const o = { instrumentName: R.pick(['requests', 'latency', 'queue.depth', '*']) };
      if (o.instrumentName !== '*' && R.chance(0.5)) o.name = R.pick(['renamed', 'latency', 'requests']);
      if (R.chance(0.3)) o.description = 'view ' + i;
      if (R.chance(0.3)) o.aggregation = R.pick([new metrics.ExponentialHistogramAggregation(R.pick([0, 1, 4, 160])),
        new metrics.ExponentialHistogramAggregation(R.pick([0, 1])),
        new metrics.ExplicitBucketHistogramAggregation([1, 10, 100]), new metrics.SumAggregation(), new metrics.DropAggregation(),
        new metrics.LastValueAggregation()]);
      if (R.chance(0.3)) o.aggregationCardinalityLimit = R.pick([1, 2, 5]);
      if (R.chance(0.2)) o.attributeKeys = ['route'];
      views.push(new metrics.View(o));
    }
  }
  const readers = [];
  const nr = R.pick([1, 1, 2]);
  for (let i = 0; i < nr; i++) {
    const interval = R.pick([30, 60, 120]);
    readers.push(new metrics.PeriodicExportingMetricReader({
      exporter: makeMetricExporter(R, ck, created, scen),
      exportIntervalMillis: interval,
      exportTimeoutMillis: R.pick([20, interval]),
      cardinalitySelector: R.chance(0.2) ? (() => 2) : undefined,
    }));
  }
  const res = await makeResource(R, scen === 'resource');
  const mp = new metrics.MeterProvider({ views, readers, resource: res });
  const meter = mp.getMeter(R.pick(['app', 'worker']), '1.0');
  const names = ['requests', 'latency', 'queue.depth', R.pick(['1bad', 'x'.repeat(260), 'ok-name', 'bad name!'])];
  const inst = [];
  const nInst = R.int(1, 5);
  for (let i = 0; i < nInst; i++) {
    const nm = R.pick(names);
    const opt = { unit: R.pick(['ms', 's', '1', '']), description: R.pick(['', 'how many', 'the longer description of it']) };
    if (R.chance(0.3)) opt.valueType = api.ValueType.INT;
    const t = R.pick(['counter', 'counter', 'histogram', 'updown', 'gauge', 'ogauge', 'ocounter', 'batch']);
    if (t === 'counter') inst.push(['add', meter.createCounter(nm, opt)]);
    else if (t === 'histogram') inst.push(['record', meter.createHistogram(nm, opt)]);
    else if (t === 'updown') inst.push(['add', meter.createUpDownCounter(nm, opt)]);
    else if (t === 'gauge') inst.push(['record', meter.createGauge(nm, opt)]);
    else if (t === 'ogauge' || t === 'ocounter') {
      const o = t === 'ogauge' ? meter.createObservableGauge(nm, opt) : meter.createObservableCounter(nm, opt);
      const mode = R.pick(['ok', 'nan', 'string', 'float', 'throw']);
      o.addCallback((r) => {
        if (mode === 'throw') throw new Error('probe failed');
        r.observe(mode === 'string' ? 'high' : mode === 'float' ? 2.5 : mode === 'nan' ? NaN : 7, { route: '/a' });
      });
    } else {
      const o = meter.createObservableUpDownCounter(nm, opt);
      meter.addBatchObservableCallback((r) => {
        r.observe(o, R.pick([3, 1.5, 'x']), { route: '/b' });
      }, R.chance(0.3) ? [{ not: 'an instrument' }] : [o]);
    }
  }
  const nRec = R.int(2, 12);
  for (let i = 0; i < nRec && inst.length; i++) {
    const [m, ins] = R.pick(inst);
    const v = R.pick([1, 5, 2.5, -3, 'lots', 100, 0]);
    ins[m](v, { route: R.pick(['/a', '/b', '/c', '/d']), code: R.pick([200, 500]) });
  }
  await sleep(R.pick([5, 40, 90, 140]));
  if (R.chance(0.4)) await settle(mp.forceFlush(), 400);
  await settle(mp.shutdown(), 600);
  if (R.chance(0.2)) await settle(mp.shutdown(), 100);
  if (R.chance(0.15)) await settle(mp.forceFlush(), 100);
  if (R.chance(0.15)) mp.getMeter('late');
  if (R.chance(0.15)) await settle(readers[0].shutdown(), 100);
  if (R.chance(0.1)) await settle(readers[0].forceFlush(), 100);
}

// -- http instrumentation ----------------------------------------------------
function httpGet(url, headers, timeout) {
  return new Promise((resolve) => {
    let r;
    try {
      r = http.get(url, { headers, timeout: timeout || 500 }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve(-1));
      });
    } catch (e) {
      resolve(-2);
      return;
    }
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', () => resolve(-1));
  });
}

async function httpCase(R, ck, created, scen) {
  const cfg = { spanProcessors: [makeProcessor(R, ck, created, scen === 'otlp')] };
  const s = makeSampler(R);
  if (s) cfg.sampler = s;
  const provider = new NodeTracerProvider(cfg);
  provider.register();
  const icfg = {};
  if (R.chance(0.2)) icfg.ignoreIncomingRequestHook = (rq) => { if ((rq.url || '').includes('fail')) throw new Error('hook bug'); return false; };
  if (R.chance(0.2)) icfg.ignoreOutgoingRequestHook = () => { throw new Error('outgoing hook bug'); };
  if (R.chance(0.15)) icfg.requireParentforOutgoingSpans = true;
  if (R.chance(0.15)) icfg.applyCustomAttributesOnSpan = () => { throw new Error('custom attrs failed'); };
  httpInst.setConfig(icfg);
  httpInst.setTracerProvider(provider);
  httpInst.enable();
  const tracer = provider.getTracer('client');
  const n = R.int(1, 4);
  for (let i = 0; i < n; i++) {
    const target = R.pick(['/ok', '/ok', '/slow', '/fail', '/drop', 'closed', 'badurl']);
    const headers = {};
    if (R.chance(0.5)) headers.traceparent = makeTraceparent(R);
    const go = async () => {
      if (target === 'closed') return httpGet(`http://127.0.0.1:${CLOSED_PORT}/x`, headers);
      if (target === 'badurl') return httpGet(R.pick(['http://[::1', 'not a url at all']), headers);
      return httpGet(`http://127.0.0.1:${appPort}${target}?i=${i}`, headers);
    };
    if (R.chance(0.5)) {
      const parent = tracer.startSpan('parent-op');
      await api.context.with(api.trace.setSpan(api.context.active(), parent), go);
      parent.end();
    } else {
      await go();
    }
  }
  httpInst.disable();
  await settle(provider.forceFlush(), 400);
  await settle(provider.shutdown(), 600);
  api.trace.disable(); api.propagation.disable(); api.context.disable();
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const created = [];
  const kind = R.pick(['trace', 'trace', 'trace', 'trace', 'trace', 'metrics', 'metrics', 'http', 'mixed']);
  const env = setEnv(R, kind);
  // the SDK draws trace/span ids (and so ratio-sampling decisions) and retry
  // jitter from Math.random: seed it per case too
  Math.random = cap.seededRandom(`${args.seed}-${i}-ids`);
  log.caseId = ck;
  try {
    await caseStore.run(ck, () => {
      if (kind === 'trace') return traceCase(R, ck, created, env.scen);
      if (kind === 'metrics') return metricsCase(R, ck, created, env.scen);
      if (kind === 'http') return httpCase(R, ck, created, env.scen);
      const R2 = cap.rngTools(cap.seededRandom(`${args.seed}-${i}-m`));
      return Promise.all([traceCase(R, ck, created, env.scen), metricsCase(R2, ck, created, env.scen)]);
    });
  } catch (e) {
    // a case that throws (e.g. invalid configuration) still keeps what it logged
  }
  log.caseId = null;
  for (const k of env.keys) delete process.env[k];
  log.endCase();
  // let stragglers (timed-out requests, timers) finish outside any case
  await sleep(2);
}

async function main() {
  const t0 = Date.now();
  const col = await startCollector();
  COLLECTOR_PORT = col.port;
  CLOSED_PORT = await freePort();
  await startAppServer();
  for (let i = 0; i < args.cases; i++) await runCase(i);
  await log.finish();
  appServer.closeAllConnections();
  await new Promise((r) => appServer.close(r));
  col.worker.postMessage('stop');
  await new Promise((r) => col.worker.once('exit', r));
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
