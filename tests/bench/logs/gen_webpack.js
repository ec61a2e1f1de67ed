#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `webpack` 5.113.0 (plain CommonJS in `lib/`), driven
 * through its Node API over small generated projects.
 *
 *   node gen_webpack.js --repo            # prints the directory to index
 *   node gen_webpack.js --out LOG.csv.gz [--cases 480] [--seed 1] [--deps DIR]
 *
 * Indexed directory: <deps>/node_modules/webpack/lib (truth paths `lib/...`).
 * No server, no network.  Each case's project lives in a temp dir removed
 * at the end of the case (and the root of them all at exit).
 *
 * Logging: webpack has a logger of its own (lib/logging/Logger.js), made in
 * two places: `compiler.getInfrastructureLogger(name)` (the persistent
 * cache's `webpack.cache.PackFileCacheStrategy`, `webpack.Progress`, the
 * memory and idle cache plugins) and `compilation.getLogger(name)`
 * (`webpack.Compilation`, `webpack.Compiler`, `webpack.FileSystemInfo`,
 * `webpack.buildChunkGraph`, the optimization plugins...).  Children are
 * `name/child`.  Level methods `error warn info log debug status group
 * groupCollapsed`, and timers: `time(label)` then `timeEnd(label)` (or
 * `timeLog`), `timeAggregate(label)` summed up and reported by
 * `timeAggregateEnd(label)`; a timer's line is rendered by the logger from
 * the label (`${label}: ${ms} ms`), so only the label is in the code, at
 * the `timeEnd`/`timeAggregateEnd` call, which is the emitter.  Every call
 * reaches a closure that each factory hands the Logger (the `(type, args)
 * => {...}` arrow inside `Compiler.getInfrastructureLogger` and inside
 * `Compilation.getLogger`); the first calls the `infrastructureLog` hook,
 * then the console logger of `infrastructureLogging` (createConsoleLogger),
 * the second calls the compilation's `log` hook, then keeps the entry for
 * the stats.  Each case's configuration gets a plugin of the generator
 * that taps both hooks (on every compiler, child compilations included)
 * and records each entry with its call site; its infrastructure tap
 * returns true, so nothing is printed.  Configurations ask for everything:
 * `infrastructureLogging: {level: 'verbose', debug: true}`, `stats.logging:
 * 'verbose'` (the hooks see every entry whatever the levels anyway).
 *   - activity: the text webpack's console logger prints, without its
 *     `[name] ` prefix (the name is the logger): `util.format(...args)`
 *     (so `%d`/`%s` in the first argument are filled), and for a timer
 *     `${label}: ${ms} ms` with ms = seconds * 1000 + nanoseconds / 1e6,
 *     as createConsoleLogger renders it.  Entries with nothing to print
 *     (`groupEnd`, `clear`, `profile`, `profileEnd`, a `status()` without
 *     arguments, which clears the status line) make no record.
 *   - level: the entry's type upper-cased (ERROR, WARN, INFO, LOG, DEBUG,
 *     STATUS, GROUP, GROUPCOLLAPSED, TIME, TRACE).
 *   - logger: the logger's name (`webpack.Compilation`,
 *     `webpack.cache.PackFileCacheStrategy`, ...).
 * Machinery (never an emitter): lib/logging/Logger.js,
 * createConsoleLogger.js, truncateArgs.js and runtime.js (the browser
 * runtime's copy), tapable (which calls the hooks), and the two closures
 * above, which dispatch to the hooks and hold no message: they are inside
 * Compiler.js and Compilation.js, so their frames are recognised by line
 * range (the span of that first arrow in each method, found in the
 * installed files at start by _capture.js's scanner) and mapped onto a
 * pseudo-file of the machinery list.  lib/logging/ProgressPlugin.js is not
 * machinery: it is the progress plugin's default handler, which composes
 * its own lines.
 *
 * Wrappers (frames skipped, their caller is the emitter, code.wrapped=1),
 * all functions whose bodies only pick a level or prefix and log their
 * caller's text:
 *   - `logByValue(value, msg)` in Compilation.finish (lib/Compilation.js):
 *     logs the module-profile line its caller built, at a level chosen by
 *     the duration;
 *   - `log(msg)` in applyDiff (lib/output/CleanPlugin.js): `info` for a dry
 *     run, else `log`;
 *   - `logWhenMessage(header, message)` in FileSystemInfo.logStatistics
 *     (lib/fs/FileSystemInfo.js): logs `${header}: ${message}` when there
 *     is a message.
 * Not declared: FileSystemInfo's `_log(path, reason, ...args)` (it also
 * de-duplicates, counts and logs a limit message of its own) and the
 * progress handler's `reportProfile` (it keeps state and builds its lines).
 *
 * A case is one build lifetime, with its own PRNG seeded `<seed>-<i>`, on
 * a project of 2-8 modules written to the case's dir: 1-3 entries, ESM and
 * CommonJS modules importing each other (cycles too), dynamic `import()`s
 * (named chunks), JSON, assets (`asset/resource`, `asset/inline`,
 * `asset/source`, `new URL(..., import.meta.url)`), a `require.context`
 * over a directory of JSON files, a tiny package in node_modules (with
 * `sideEffects: false`), externals, resolve aliases, DefinePlugin
 * constants, a local loader (some cases a failing one), and faults: a
 * missing module, an unknown export, a syntax error, a missing entry.  The
 * configuration draws the mode (development, none, production: rarely,
 * and half of those without minimizing), devtool, target, output options
 * (filename hashes, `clean` with `keep` or `dry` over stale files,
 * `copy`), optimization flags (splitChunks settings, runtimeChunk,
 * concatenateModules, usedExports, sideEffects, ids), `profile`, the
 * snapshot options, `experiments.cacheUnaffected`, the progress plugin
 * (rarely, some with its profile) and the cache: none, memory (with or
 * without `maxGenerations`), or filesystem (compression, profile, version,
 * idle timeouts, build dependencies).  The run is one of: `compiler.run`
 * once; `run` two or three times (cache hits, files changed in between);
 * with the filesystem cache, a first compiler that builds and stores, then
 * a second one that restores the pack (sometimes after a file, the
 * configuration's build dependency or the cache version changed, or with
 * the pack file corrupted); `compiler.watch` with 1-2 file changes
 * (an edit, a new file, a syntax error, a deletion), then close; or a
 * MultiCompiler of two configurations.  Every compiler is closed (which
 * stores the filesystem cache).
 */
const fs = require('fs');
const path = require('path');
const util = require('util');
const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'webpack', 480);
const WP_DIR = path.join(args.deps, 'node_modules', 'webpack');
const INDEX_DIR = path.join(WP_DIR, 'lib');
if (!fs.existsSync(INDEX_DIR)) {
  process.stderr.write(`webpack not installed in ${args.deps} (npm ci there)\n`);
  process.exit(1);
}
const INDEX_REAL = fs.realpathSync(INDEX_DIR);
if (args.repo) {
  process.stdout.write(INDEX_REAL + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_webpack.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// The logger backends: the first arrow `(type, args) => {...}` defined in
// Compiler.getInfrastructureLogger and in Compilation.getLogger, as line
// ranges of the installed files.
function backendRange(file, method) {
  const spans = cap.scanFunctions(fs.readFileSync(file, 'utf8'));
  const m = spans.find((s) => s.name === method && s.kind === 'func');
  if (!m) throw new Error(`no ${method} in ${file}`);
  const inner = spans.filter((s) => s.parent === m && s.anon)
    .sort((a, b) => a.start[0] - b.start[0] || a.start[1] - b.start[1]);
  if (!inner.length) throw new Error(`no logger closure in ${method}`);
  return { file, from: inner[0].start[0], to: inner[0].end[0] };
}
const BACKENDS = [backendRange(path.join(INDEX_REAL, 'Compiler.js'), 'getInfrastructureLogger'),
  backendRange(path.join(INDEX_REAL, 'Compilation.js'), 'getLogger')];
const BACKEND_DIR = path.join(path.sep, 'pmrag-webpack-logger-backend');
const TAPABLE_DIR = path.dirname(require.resolve('tapable/package.json', { paths: [fs.realpathSync(WP_DIR)] }));

const log = new cap.EventLog(args.out, {
  indexDir: INDEX_REAL,
  machinery: ['Logger.js', 'createConsoleLogger.js', 'truncateArgs.js', 'runtime.js']
    .map((f) => path.join(INDEX_REAL, 'logging', f)).concat([TAPABLE_DIR, BACKEND_DIR]),
  wrappers: [['lib/Compilation.js', 'logByValue'], ['lib/output/CleanPlugin.js', 'log'],
    ['lib/fs/FileSystemInfo.js', 'logWhenMessage']],
  mapLocation: (file, line, column) => {
    for (const b of BACKENDS) {
      if (file === b.file && line >= b.from && line <= b.to) {
        return { file: path.join(BACKEND_DIR, path.basename(file)), line, column };
      }
    }
    return null;
  },
});

const webpack = require(fs.realpathSync(WP_DIR));

let silent = 0; // entries with nothing to print (groupEnd, status(), profile...)
function render(type, a) {
  a = a || [];
  switch (type) {
    case 'time': {
      const [label, s, ns] = a;
      return `${label}: ${s * 1000 + ns / 1000000} ms`;
    }
    case 'trace': return 'Trace';
    case 'groupEnd': case 'clear': case 'profile': case 'profileEnd': return null;
    default:
      if (!a.length) return null;
      return util.format(...a);
  }
}

function record(name, type, a, skipFn) {
  const msg = render(type, a);
  if (msg === null) { silent++; return; }
  log.record(msg, String(type).toUpperCase(), typeof name === 'string' ? name : String(name), skipFn);
}

class CapturePlugin {
  apply(compiler) {
    compiler.hooks.infrastructureLog.tap('PmragCapture', function capturedInfrastructureLog(name, type, a) {
      record(name, type, a, capturedInfrastructureLog);
      return true; // handled: the console logger prints nothing
    });
    compiler.hooks.compilation.tap('PmragCapture', (compilation) => {
      compilation.hooks.log.tap('PmragCapture', function capturedCompilationLog(name, entry) {
        record(name, entry.type, entry.args, capturedCompilationLog);
      });
    });
  }
}

// ------------------------------------------------------------------ projects
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta'];

function writeFile(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

// A project: modules m0..mN-1 in src/, entries index0..; returns what the
// configuration and the changes need to know.
function makeProject(R, dir) {
  const src = path.join(dir, 'src');
  const n = R.int(2, 8);
  const mods = [];
  for (let k = 0; k < n; k++) mods.push({ name: `m${k}`, esm: R.chance(0.65) });
  const P = {
    dir, src, mods, entries: [], faults: [], externals: false, alias: false, txt: false, svg: false, png: false,
    loader: null, context: false, pkg: false, define: false, json: false,
  };
  const used = new Set();
  for (let k = 0; k < n; k++) {
    const m = mods[k];
    const lines = [];
    const deps = R.sample(mods.filter((x) => x !== m), R.int(0, Math.min(3, n - 1)));
    for (const d of deps) {
      if (m.esm) {
        if (d.esm && R.chance(0.7)) lines.push(`import { value as ${d.name}v } from './${d.name}.js';`);
        else lines.push(`import ${d.name}d from './${d.name}.js';`);
      } else {
        lines.push(`const ${d.name}r = require('./${d.name}.js');`);
      }
      used.add(d.name);
    }
    if (R.chance(0.25)) {
      const d = R.pick(mods);
      lines.push(`export function load${k}() { return import(${R.chance(0.5) ? `/* webpackChunkName: "lazy-${d.name}" */ ` : ''}'./${d.name}.js'); }`);
      if (!m.esm) lines[lines.length - 1] = `exports.load${k} = () => import('./${d.name}.js');`;
    }
    if (R.chance(0.2)) { lines.push(m.esm ? "import data from './data.json';" : "const data = require('./data.json');"); P.json = true; }
    if (R.chance(0.12)) { lines.push(m.esm ? "import note from './note.txt';" : "const note = require('./note.txt');"); P.txt = true; }
    if (R.chance(0.1)) { lines.push(m.esm ? "import icon from './icon.svg';" : "const icon = require('./icon.svg');"); P.svg = true; }
    if (R.chance(0.1) && m.esm) { lines.push("const logo = new URL('./logo.png', import.meta.url);"); P.png = true; }
    if (R.chance(0.08)) { lines.push(m.esm ? "import _ from 'lodash';" : "const _ = require('lodash');"); P.externals = R.chance(0.8); }
    if (R.chance(0.1)) { lines.push(m.esm ? "import helper from '@lib/helper.js';" : "const helper = require('@lib/helper.js');"); P.alias = R.chance(0.85); }
    if (R.chance(0.08)) { lines.push("const locales = require.context('./locales', false, /\\.json$/);"); P.context = true; }
    if (R.chance(0.12)) { lines.push(m.esm ? "import { tiny, unusedTiny } from 'tiny-pkg';" : "const tiny = require('tiny-pkg');"); P.pkg = true; }
    if (R.chance(0.1)) { lines.push('const flag = __FEATURE_FLAG__ ? process.env.NODE_ENV : "off";'); P.define = true; }
    if (R.chance(0.06)) { lines.push(m.esm ? "import missing from './does-not-exist.js';" : "const missing = require('./does-not-exist');"); P.faults.push('missing'); }
    if (R.chance(0.05) && m.esm && deps.some((d) => d.esm)) { lines.push(`import { nope } from './${deps.find((d) => d.esm).name}.js';`); P.faults.push('export'); }
    if (R.chance(0.04)) { lines.push('const broken = {;'); P.faults.push('syntax'); }
    const word = R.pick(WORDS);
    if (m.esm) {
      lines.push(`export const value = '${word}-${k}';`);
      lines.push(`export const unused${k} = ${R.int(1, 999)};`);
      lines.push(`export default function ${m.name}() { return value + ${deps.length}; }`);
    } else {
      lines.push(`module.exports = { value: '${word}-${k}', size: ${R.int(1, 99)} };`);
    }
    writeFile(path.join(src, `${m.name}.js`), lines.join('\n') + '\n');
  }
  const ne = R.int(1, 3);
  for (let e = 0; e < ne; e++) {
    const pick = R.sample(mods, R.int(1, Math.min(3, n)));
    const lines = pick.map((m) => `import * as ${m.name} from './${m.name}.js';`);
    lines.push(`console.log(${pick.map((m) => `${m.name}`).join(', ')});`);
    if (R.chance(0.3)) lines.push(`import('./${R.pick(mods).name}.js').then((m) => console.log(m));`);
    writeFile(path.join(src, `index${e}.js`), lines.join('\n') + '\n');
    P.entries.push(`index${e}`);
  }
  if (R.chance(0.04)) { P.entries.push('ghost'); P.faults.push('entry'); }
  if (P.json) writeFile(path.join(src, 'data.json'), JSON.stringify({ name: R.pick(WORDS), list: [1, 2, R.int(3, 9)] }));
  if (P.txt) writeFile(path.join(src, 'note.txt'), `a note about ${R.pick(WORDS)}\n`);
  if (P.svg) writeFile(path.join(src, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>\n');
  if (P.png) writeFile(path.join(src, 'logo.png'), Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'));
  if (P.context) for (const w of R.sample(WORDS, R.int(1, 3))) writeFile(path.join(src, 'locales', `${w}.json`), JSON.stringify({ w }));
  writeFile(path.join(dir, 'lib', 'helper.js'), 'module.exports = function helper(x) { return x; };\n');
  if (P.pkg) {
    const pd = path.join(dir, 'node_modules', 'tiny-pkg');
    writeFile(path.join(pd, 'package.json'), JSON.stringify({ name: 'tiny-pkg', version: '1.2.3', main: 'index.js', sideEffects: R.chance(0.6) ? false : undefined }));
    writeFile(path.join(pd, 'index.js'), 'export const tiny = 1;\nexport const unusedTiny = 2;\n');
  }
  if (R.chance(0.2)) {
    P.loader = R.chance(0.25) ? 'fail' : 'ok';
    writeFile(path.join(dir, 'loaders', 'tag-loader.js'), P.loader === 'fail'
      ? "module.exports = function () { throw new Error('tag-loader refused ' + this.resourcePath); };\n"
      : "module.exports = function (source) { this.cacheable(); return '/* tagged */\\n' + source; };\n");
  }
  writeFile(path.join(dir, 'webpack.config.js'), `module.exports = { name: ${JSON.stringify(R.pick(WORDS))} };\n`);
  writeFile(path.join(dir, 'static', 'robots.txt'), 'User-agent: *\n');
  return P;
}

function makeConfig(R, P, opts) {
  const dir = P.dir;
  const modeK = R.rand();
  const mode = modeK < 0.55 ? 'development' : modeK < 0.85 ? 'none' : 'production';
  const entry = {};
  for (const e of P.entries) entry[e] = `./src/${e}.js`;
  const cfg = {
    mode,
    context: dir,
    entry: R.chance(0.15) && P.entries.length === 1 ? `./src/${P.entries[0]}.js` : entry,
    output: {
      path: path.join(dir, opts.outDir || 'dist'),
      filename: R.pick(['[name].js', '[name].[contenthash].js', '[name].bundle.js']),
    },
    devtool: R.pick([false, 'eval', 'source-map', 'cheap-module-source-map', 'eval-source-map', 'inline-source-map', 'hidden-source-map', undefined]),
    target: R.pick(['web', 'web', 'node', 'webworker', undefined]),
    infrastructureLogging: { level: 'verbose', debug: true },
    stats: { logging: 'verbose', loggingDebug: true },
    module: { rules: [] },
    resolve: {},
    optimization: {},
    plugins: [new CapturePlugin()],
    profile: R.chance(0.2),
  };
  if (R.chance(0.3)) cfg.output.chunkFilename = R.pick(['[id].chunk.js', '[name].[chunkhash:8].js']);
  if (R.chance(0.25)) {
    const k = R.rand();
    cfg.output.clean = k < 0.4 ? true : k < 0.7 ? { keep: /keep/ } : { dry: true };
  }
  if (R.chance(0.12)) cfg.output.copy = R.chance(0.5) ? 'static' : [{ from: 'static', to: R.pick(['assets', 'public']) }];
  if (P.txt) cfg.module.rules.push({ test: /\.txt$/, type: 'asset/source' });
  if (P.svg) cfg.module.rules.push({ test: /\.svg$/, type: R.pick(['asset/inline', 'asset', 'asset/resource']) });
  if (P.png) cfg.module.rules.push({ test: /\.png$/, type: 'asset/resource' });
  if (P.loader) cfg.module.rules.push({ test: /m[0-2]\.js$/, use: [{ loader: path.join(dir, 'loaders', 'tag-loader.js') }] });
  if (P.externals) cfg.externals = { lodash: R.pick(['commonjs lodash', 'var _', 'root _']) };
  if (P.alias) cfg.resolve.alias = { '@lib': path.join(dir, 'lib') };
  if (P.define || R.chance(0.1)) {
    cfg.plugins.push(new webpack.DefinePlugin({ __FEATURE_FLAG__: JSON.stringify(R.chance(0.5)), 'process.env.NODE_ENV': JSON.stringify(mode) }));
  }
  if (R.chance(0.02)) cfg.plugins.push(new webpack.ProgressPlugin({ profile: R.chance(0.5), percentBy: R.pick([null, 'modules', 'entries']) }));
  if (R.chance(0.08)) cfg.plugins.push(new webpack.BannerPlugin({ banner: `built ${R.pick(WORDS)}` }));
  const o = cfg.optimization;
  if (mode === 'production' && R.chance(0.5)) o.minimize = false;
  if (mode !== 'production' && R.chance(0.03)) o.minimize = true;
  if (R.chance(0.4)) {
    o.splitChunks = R.pick([
      { chunks: 'all', minSize: 0 },
      { chunks: 'async' },
      { chunks: 'all', minSize: 0, maxSize: R.int(50, 400), cacheGroups: { vendor: { test: /node_modules/, name: 'vendor', chunks: 'all' } } },
      { chunks: 'all', minSize: 0, minChunks: 2, name: R.chance(0.5) ? 'shared' : undefined },
      false,
    ]);
  }
  if (R.chance(0.2)) o.runtimeChunk = R.pick(['single', 'multiple', true]);
  if (R.chance(0.25)) o.concatenateModules = R.chance(0.6);
  if (R.chance(0.2)) o.usedExports = R.chance(0.7);
  if (R.chance(0.15)) o.sideEffects = R.pick([true, false, 'flag']);
  if (R.chance(0.15)) o.moduleIds = R.pick(['named', 'deterministic', 'natural', 'size']);
  if (R.chance(0.1)) o.chunkIds = R.pick(['named', 'deterministic', 'natural', 'size', 'total-size']);
  if (R.chance(0.1)) o.innerGraph = R.chance(0.5);
  if (R.chance(0.08)) o.mangleExports = R.pick([false, 'size', 'deterministic']);
  if (R.chance(0.08)) o.realContentHash = R.chance(0.5);
  if (R.chance(0.1)) cfg.performance = { hints: R.pick(['warning', 'error', false]), maxAssetSize: R.int(100, 5000) };
  if (R.chance(0.15)) cfg.experiments = { cacheUnaffected: true };
  if (R.chance(0.1)) cfg.recordsPath = path.join(dir, 'records.json');
  if (R.chance(0.15)) {
    cfg.snapshot = {
      module: R.pick([{ timestamp: true }, { hash: true }, { timestamp: true, hash: true }]),
      resolve: R.pick([{ timestamp: true }, { hash: true }]),
      buildDependencies: R.pick([{ timestamp: true }, { hash: true }]),
    };
    if (R.chance(0.3)) cfg.snapshot.managedPaths = [path.join(dir, 'node_modules')];
  }
  if (R.chance(0.05)) cfg.parallelism = R.int(1, 4);
  // cache
  const ck = opts.cache || (R.chance(0.4) ? 'filesystem' : R.pick(['none', 'memory', 'memory', 'default']));
  if (ck === 'none') cfg.cache = false;
  else if (ck === 'memory') cfg.cache = R.chance(0.5) ? { type: 'memory', maxGenerations: R.int(1, 3) } : { type: 'memory' };
  else if (ck === 'filesystem') {
    cfg.cache = {
      type: 'filesystem',
      cacheDirectory: path.join(dir, '.cache'),
      buildDependencies: R.chance(0.6) ? { config: [path.join(dir, 'webpack.config.js')] } : {},
    };
    if (R.chance(0.3)) cfg.cache.name = R.pick(WORDS);
    if (R.chance(0.3)) cfg.cache.version = String(R.int(1, 3));
    if (R.chance(0.25)) cfg.cache.compression = R.pick(['gzip', 'brotli', false]);
    if (R.chance(0.3)) cfg.cache.profile = true;
    if (R.chance(0.3)) cfg.cache.idleTimeout = R.pick([0, 5, 100]);
    if (R.chance(0.3)) cfg.cache.idleTimeoutForInitialStore = R.pick([0, 5]);
    if (R.chance(0.1)) cfg.cache.maxMemoryGenerations = R.pick([0, 1, Infinity]);
    if (R.chance(0.1)) cfg.cache.allowCollectingMemory = true;
    if (R.chance(0.05)) cfg.cache.maxAge = 1;
    if (R.chance(0.04)) cfg.cache.readonly = true;
  }
  return cfg;
}

// ---------------------------------------------------------------- running
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function run(compiler) {
  return new Promise((resolve) => compiler.run((err, stats) => resolve({ err, stats })));
}
function close(compiler) {
  return new Promise((resolve) => compiler.close((err) => resolve(err)));
}

// A change between builds: an edit, a new module imported from an
// entry, a syntax error, or a deleted module.
function change(R, P) {
  const k = R.rand();
  const m = R.pick(P.mods);
  const file = path.join(P.src, `${m.name}.js`);
  if (k < 0.5) fs.appendFileSync(file, m.esm ? `export const edited${R.int(1, 99)} = 1;\n` : `module.exports.edited = ${R.int(1, 99)};\n`);
  else if (k < 0.7) {
    const name = `extra${R.int(1, 99)}`;
    writeFile(path.join(P.src, `${name}.js`), `export const ${name} = 1;\n`);
    fs.appendFileSync(path.join(P.src, `${P.entries[0] === 'ghost' ? 'index0' : P.entries[0]}.js`), `import './${name}.js';\n`);
  } else if (k < 0.85) fs.appendFileSync(file, 'const oops = ;\n');
  else fs.rmSync(file, { force: true });
  if (R.chance(0.3)) fs.appendFileSync(path.join(P.dir, 'static', 'robots.txt'), 'Disallow: /x\n');
}

function staleFiles(R, outDir) {
  for (const f of R.sample(['old.js', 'keep-me.txt', 'sub/stale.js', 'keep/a.js', 'main.0123.js'], R.int(1, 4))) writeFile(path.join(outDir, f), '// stale\n');
}

async function runCase(R, dir) {
  const P = makeProject(R, dir);
  const k = R.rand();
  if (k < 0.06) {
    // two configurations at once
    const a = makeConfig(R, P, { outDir: 'dist-a' });
    const b = makeConfig(R, P, { outDir: 'dist-b', cache: R.chance(0.5) ? 'none' : 'memory' });
    a.name = 'first'; b.name = 'second';
    if (a.cache && a.cache.type === 'filesystem') a.cache.name = 'first';
    if (R.chance(0.3)) b.dependencies = ['first'];
    const multi = webpack([a, b]);
    await new Promise((resolve) => multi.run(() => resolve()));
    await new Promise((resolve) => multi.close(() => resolve()));
    return;
  }
  const cfg = makeConfig(R, P, {});
  if (cfg.output.clean) staleFiles(R, cfg.output.path);
  const fsCache = cfg.cache && cfg.cache.type === 'filesystem';
  if (k < 0.5) {
    // one compiler, 1-3 runs
    const compiler = webpack(cfg);
    const runs = R.chance(0.55) ? 1 : R.int(2, 3);
    for (let r = 0; r < runs; r++) {
      if (r > 0 && R.chance(0.6)) { await sleep(R.int(5, 30)); change(R, P); }
      await run(compiler);
    }
    await close(compiler);
  } else if (k < 0.78 || !fsCache) {
    if (!fsCache) {
      // watch
      const compiler = webpack(cfg);
      await new Promise((resolve) => {
        let builds = 0;
        const changes = R.int(1, 2);
        let timer = null;
        const done = () => { clearTimeout(timer); watching.close(() => resolve()); };
        const watching = compiler.watch({ aggregateTimeout: R.int(20, 120), poll: R.chance(0.2) ? 50 : undefined }, () => {
          builds++;
          clearTimeout(timer);
          if (builds > changes) { done(); return; }
          setTimeout(() => { try { change(R, P); } catch (e) { /* ignore */ } }, R.int(20, 60));
          if (R.chance(0.1)) setTimeout(() => watching.invalidate(), 5);
          timer = setTimeout(done, 2500);
        });
        timer = setTimeout(done, 6000);
      });
      await close(compiler);
      return;
    }
    // filesystem cache: a second compiler restores what the first stored
    const first = webpack(cfg);
    await run(first);
    if (R.chance(0.3)) await run(first);
    await close(first);
    const j = R.rand();
    if (j < 0.35) change(R, P);
    else if (j < 0.5) fs.appendFileSync(path.join(dir, 'webpack.config.js'), `// ${R.pick(WORDS)}\n`);
    else if (j < 0.58) cfg.cache.version = 'v-next';
    else if (j < 0.66) corruptCache(R, path.join(dir, '.cache'));
    cfg.plugins = cfg.plugins.filter((p) => p instanceof CapturePlugin || R.chance(0.8));
    const second = webpack(cfg);
    await run(second);
    if (R.chance(0.25)) { change(R, P); await run(second); }
    await close(second);
  } else {
    // filesystem cache watched, then closed
    const compiler = webpack(cfg);
    await new Promise((resolve) => {
      let builds = 0;
      let timer = null;
      const done = () => { clearTimeout(timer); watching.close(() => resolve()); };
      const watching = compiler.watch({ aggregateTimeout: 30 }, () => {
        builds++;
        clearTimeout(timer);
        if (builds > 1) { done(); return; }
        setTimeout(() => change(R, P), 30);
        timer = setTimeout(done, 2500);
      });
      timer = setTimeout(done, 6000);
    });
    await close(compiler);
  }
}

function corruptCache(R, cacheDir) {
  const files = [];
  const walk = (d) => {
    let ents;
    try { ents = fs.readdirSync(d, { withFileTypes: true }); } catch (e) { return; }
    for (const e of ents) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else files.push(p);
    }
  };
  walk(cacheDir);
  files.sort();
  if (!files.length) return;
  const f = R.pick(files);
  if (R.chance(0.5)) fs.writeFileSync(f, 'garbage'); else fs.rmSync(f);
}

async function main() {
  const root = cap.tempDir('webpack');
  process.on('unhandledRejection', () => {});
  let failed = 0;
  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) {
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    const dir = path.join(root.dir, `p${i}`);
    fs.mkdirSync(dir);
    log.caseId = `c${String(i).padStart(5, '0')}`;
    try {
      await runCase(R, dir);
    } catch (e) {
      failed++;
      if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId}: ${String(e && e.stack || e).split('\n').slice(0, 3).join(' | ')}\n`);
    }
    log.endCase();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await log.finish();
  root.cleanup();
  process.stderr.write(`${log.summary()}, ${failed} cases threw, ${silent} entries with no text, in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
