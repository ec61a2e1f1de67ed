#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `verdaccio` 5.33.0 (a private npm registry server; Babel
 * output of its TypeScript sources), run in this process and driven over
 * loopback HTTP with Node's own `http` module.
 *
 *   node gen_verdaccio.js --repo                    # prints the dir to index
 *   node gen_verdaccio.js --out .deps/logs/verdaccio.csv.gz [--cases 1000] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/verdaccio/build (truth paths `build/lib/...`,
 * `build/api/...`).  Most of verdaccio's logger calls live there; its scoped
 * helper packages (`@verdaccio/middleware`, the access log among them,
 * `@verdaccio/local-storage-legacy`, the htpasswd plugin) are not indexed,
 * so their records are dropped.
 *
 * Logging: one process-wide pino logger, made by `@verdaccio/logger-7` on the
 * first server start and read by every module as `_logger.logger.info(...)`
 * or through `this.logger` / `self.logger` (the same object, stored by the
 * storage, auth and uplink classes).  Messages use verdaccio's own
 * placeholders, `@{name}`, `@{a.b}`, `@{!name}`, filled from the object passed
 * first (`logger.info({ packageName }, 'allowed access for @{packageName}')`);
 * some messages are template literals or arrays joined at the call, some
 * are built in a local (`message += ...`) before the call.  The logger runs
 * in verdaccio's json format, whose `logMethod` hook fills the placeholders
 * with the same function and options (colours off) the pretty output uses;
 * the activity is that filled-in `msg`.  Capture: pino's write method (the
 * prototype's `writeSym`, reached by every level method and child logger)
 * is wrapped; the record's own output goes to the null device.  level =
 * pino's level label upper-cased (TRACE, DEBUG, INFO, HTTP, WARN, ERROR,
 * FATAL); logger = `verdaccio`, then `/sub` when the record or its child
 * logger carries verdaccio's `sub` field (`out`, `fs`).
 * Emitter: the first frame inside the indexed dir below pino and the logger
 * packages.  Declared wrappers: the `beforeAll` / `afterAll` arrows of
 * `api/endpoint/api/{package,publish,dist-tags}.js` and
 * `api/web/api/package.js`, which only forward `(params, message)` to
 * `logger.trace`/`logger.debug` for `@verdaccio/middleware`'s `allow`; their
 * caller lies outside the indexed dir, so those records are dropped.
 *
 * A case is one server lifetime with its own seeded PRNG: `runServer` with a
 * config made for the case (storage in a temp dir of its own, htpasswd auth
 * with a random `max_users`, package access rules: open, authenticated,
 * owner-only and proxied scopes, random uplink timeout / max_fails /
 * fail_timeout / cache settings, the web UI on or off, a log level drawn per
 * case, mostly `trace`), listening on 127.0.0.1; uplinks point only at local
 * fake registries in this process (well-behaved, 404 for everything, 500s,
 * broken JSON, slow past the timeout, connection resets, a closed port).
 * Then 3-15 requests: user add and login with good and bad passwords,
 * whoami, publish (a package document with a base64 tarball attachment, some
 * broken: bad JSON, no attachment, wrong version, forbidden scope), package
 * metadata and tarball downloads (local, proxied, missing), dist-tags,
 * unpublish, search (v1 and the deprecated `/-/all`), ping, 404s, 401/403
 * by the access rules, token endpoints, the web UI's package list.  The
 * server is closed at the end of the case.  Exceptions verdaccio throws
 * outside a request's error handling (its error helper handed an undefined
 * status on some uplink failures) are caught and counted in the summary
 * line; the case goes on.  Debugging aids: PMRAG_TIMING=1
 * prints one line per case to stderr; PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const http = require('http');
const zlib = require('zlib');
const crypto = require('crypto');

const args = require('./_capture').parseArgs(process.argv, 'verdaccio', 1000);
const NM = path.join(args.deps, 'node_modules');
const V_DIR = path.join(NM, 'verdaccio');
const INDEX_DIR = path.join(V_DIR, 'build');
if (args.repo) {
  if (!fs.existsSync(path.join(V_DIR, 'package.json'))) {
    process.stderr.write(`missing ${V_DIR}: run npm ci in ${args.deps}\n`);
    process.exit(1);
  }
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_verdaccio.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// verdaccio picks its pretty (worker-thread) format unless in production;
// the json format renders the placeholders in the calling thread.
process.env.NODE_ENV = 'production';

const cap = require('./_capture');
const { dir: TMP, cleanup } = require('./_capture').tempDir('verdaccio');

// the pino copy verdaccio's logger is made with (logger-7's own, else the top one)
function pinoDir() {
  const nested = path.join(NM, '@verdaccio', 'logger-7', 'node_modules', 'pino');
  return fs.existsSync(nested) ? nested : path.join(NM, 'pino');
}
const PINO_DIR = pinoDir();
const pino = require(PINO_DIR);

const wrappers = [];
for (const f of ['api/endpoint/api/package.js', 'api/endpoint/api/publish.js', 'api/endpoint/api/dist-tags.js',
  'api/web/api/package.js']) {
  wrappers.push([`build/${f}`, 'beforeAll'], [`build/${f}`, 'afterAll']);
}
const log = new cap.EventLog(args.out, {
  indexDir: INDEX_DIR,
  wrappers,
  machinery: [PINO_DIR, path.join(NM, '@verdaccio', 'logger-7'), path.join(NM, '@verdaccio', 'logger-commons'),
    path.join(NM, '@verdaccio', 'logger-prettify'), path.join(NM, 'pino-std-serializers'),
    path.join(NM, 'sonic-boom')],
});
const verdaccio = require(V_DIR);
const { fillInMsgTemplate } = require(path.join(NM, '@verdaccio', 'logger-prettify'));

// ---------------------------------------------------------------------------
// Capture at pino's write: (obj, msg, level number), msg already filled in.
{
  const writeSym = pino.symbols.writeSym;
  // each instance's prototype is made per instance over one shared object
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(pino({ level: 'info' }, { write() {} })));
  const orig = proto[writeSym];
  proto[writeSym] = function capturedWrite(obj, msg, num) {
    if (log.caseId !== null) {
      const label = (this.levels && this.levels.labels && this.levels.labels[num]) || String(num);
      let sub = obj && typeof obj === 'object' && typeof obj.sub === 'string' ? obj.sub : null;
      if (!sub) {
        const b = typeof this.bindings === 'function' ? this.bindings() : null;
        if (b && typeof b.sub === 'string') sub = b.sub;
      }
      let text = msg;
      if (text === undefined || text === null) {
        if (obj instanceof Error) text = obj.message;
        else if (obj && typeof obj.msg === 'string') text = obj.msg;
        else text = '';
      }
      text = String(text);
      // a message whose placeholders the json hook left alone (the fields
      // passed after the text, or no fields at all): the pretty output fills
      // them from the record as written, as done here
      if (text.includes('@{')) {
        const b = typeof this.bindings === 'function' ? this.bindings() : {};
        const rec = Object.assign({ level: num, pid: process.pid, hostname: os.hostname() }, b,
          obj && typeof obj === 'object' && !(obj instanceof Error) ? obj : {}, { msg: text });
        try { text = fillInMsgTemplate(text, rec, false); } catch (e) { /* keep the template */ }
      }
      log.record(text, label.toUpperCase(), sub ? `verdaccio/${sub}` : 'verdaccio', capturedWrite);
    }
    return orig.call(this, obj, msg, num);
  };
}

process.on('unhandledRejection', () => {});
let escaped = 0;
process.on('uncaughtException', (e) => {
  escaped++;
  if (escaped < 5) process.stderr.write(`uncaught: ${String((e && e.stack) || e).split('\n').slice(0, 3).join(' | ')}\n`);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Fake upstream registries: each behaviour on a port of its own.
function tarball(name, version) {
  // a small gzipped tar-like payload; verdaccio stores it as given
  const body = Buffer.from(`package/package.json\0${JSON.stringify({ name, version })}`);
  return zlib.gzipSync(Buffer.concat([body, Buffer.alloc(512 - (body.length % 512))]));
}

function upstreamDoc(name, base) {
  const versions = {};
  const n = 1 + (name.length % 3);
  for (let k = 0; k < n; k++) {
    const v = `1.${k}.0`;
    versions[v] = { name, version: v, description: `upstream ${name}`,
      dist: { tarball: `${base}/${name}/-/${name.replace(/^@[^/]+\//, '')}-${v}.tgz`,
        shasum: crypto.createHash('sha1').update(tarball(name, v)).digest('hex') } };
  }
  // an odd document now and then: a tag naming a missing version, no time
  if (name.includes('odd')) versions[`1.${n - 1}.0`].deprecated = 'use something else';
  return { _id: name, name, 'dist-tags': { latest: `1.${n - 1}.0` }, versions,
    time: { modified: new Date(0).toISOString() }, readme: name.includes('bare') ? '' : `# ${name}` };
}

const upstreams = {};
const upstreamServers = [];
function startUpstream(kind) {
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      const base = `http://127.0.0.1:${srv.address().port}`;
      const url = decodeURIComponent(req.url.split('?')[0]);
      req.resume();
      if (kind === 'reset') { req.socket.destroy(); return; }
      if (kind === 'slow') { setTimeout(() => { try { res.end('{}'); } catch (e) { /* gone */ } }, 2500); return; }
      if (kind === 'error500') { res.writeHead(500, { 'content-type': 'application/json' }); res.end('{"error":"upstream exploded"}'); return; }
      if (kind === 'notfound') { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not found"}'); return; }
      if (kind === 'garbage') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"name": "broken'); return; }
      if (url.startsWith('/-/v1/search')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ objects: [{ package: { name: 'remote-pkg', version: '1.0.0', description: 'r' },
          score: { final: 1, detail: { quality: 1, popularity: 1, maintenance: 1 } }, searchScore: 1 }], total: 1, time: '' }));
        return;
      }
      if (url.startsWith('/-/all')) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"_updated": 1}'); return; }
      const m = url.match(/^\/((?:@[^/]+\/)?[^/]+)\/-\/(.+)-(\d+\.\d+\.\d+)\.tgz$/);
      if (m) {
        if (m[2].includes('missingtgz')) { res.writeHead(404); res.end(); return; }
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(tarball(m[1], m[3]));
        return;
      }
      const name = url.slice(1);
      if (!name || name.includes('nowhere')) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not_found"}'); return; }
      if (req.headers['if-none-match'] && name.includes('etag')) { res.writeHead(304); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json', etag: `"${name.length}"` });
      res.end(JSON.stringify(upstreamDoc(name, base)));
    });
    srv.keepAliveTimeout = 500;
    srv.listen(0, '127.0.0.1', () => { upstreams[kind] = `http://127.0.0.1:${srv.address().port}/`; upstreamServers.push(srv); resolve(); });
  });
}

async function closedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const p = s.address().port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${p}/`;
}

// ---------------------------------------------------------------------------
// HTTP client (Node's http module only).
function request(port, method, urlPath, opts) {
  opts = opts || {};
  return new Promise((resolve) => {
    const headers = Object.assign({ accept: 'application/json' }, opts.headers || {});
    let body = null;
    if (opts.raw !== undefined) { body = Buffer.from(opts.raw); headers['content-type'] = headers['content-type'] || 'application/json'; }
    else if (opts.json !== undefined) { body = Buffer.from(JSON.stringify(opts.json)); headers['content-type'] = 'application/json'; }
    if (body) headers['content-length'] = body.length;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.basic) headers.authorization = `Basic ${Buffer.from(opts.basic).toString('base64')}`;
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try { json = JSON.parse(text); } catch (e) { /* not json */ }
        if (process.env.PMRAG_REQS) process.stderr.write(`  ${method} ${urlPath} -> ${res.statusCode} ${text.slice(0, 60).replace(/\s+/g, ' ')}\n`);
        resolve({ status: res.statusCode, json, text });
      });
      res.on('error', () => resolve({ status: 0, json: null, text: '' }));
    });
    req.setTimeout(opts.timeout || 6000, () => { if (process.env.PMRAG_REQS) process.stderr.write(`  ${method} ${urlPath} timed out\n`); req.destroy(new Error('client timeout')); });
    req.on('error', () => resolve({ status: 0, json: null, text: '' }));
    if (body) req.write(body);
    req.end();
  });
}

function publishDoc(name, version, opts) {
  opts = opts || {};
  const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
  const tgz = tarball(name, version);
  const doc = {
    _id: name, name, description: `pkg ${name}`,
    'dist-tags': { [opts.tag || 'latest']: version },
    versions: { [version]: { name, version, description: `pkg ${name}`, readme: opts.noReadme ? undefined : `# ${name}`,
      dist: { shasum: crypto.createHash('sha1').update(tgz).digest('hex'), tarball: `http://localhost/${name}/-/${file}` } } },
    readme: opts.noReadme ? undefined : `# ${name}`,
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tgz.toString('base64'), length: tgz.length } },
  };
  if (opts.noAttachment) delete doc._attachments;
  if (opts.noVersions) delete doc.versions;
  if (opts.twoAttachments) doc._attachments[`x-${file}`] = doc._attachments[file];
  return doc;
}

// ---------------------------------------------------------------------------
const USERS = ['alice', 'bob', 'carol', 'dave', 'erin'];
const PASSWORDS = { alice: 'alice-pw', bob: 'bob-pw', carol: 'carol-pw', dave: 'dave-pw', erin: 'erin-pw' };
const LEVELS = ['trace', 'trace', 'trace', 'trace', 'trace', 'trace', 'debug', 'http', 'info'];

function makeConfig(R, dir, ck) {
  const kinds = ['good', 'good', 'good', 'notfound', 'error500', 'garbage', 'slow', 'reset', 'closed'];
  const upKind = R.pick(kinds);
  const second = R.chance(0.5) ? R.pick(kinds) : null;
  const uplink = (kind) => {
    const u = { url: upstreams[kind] };
    u.timeout = R.chance(0.05) ? 1500 : R.pick(['1s', '2s', '400ms', '800ms']);
    if (R.chance(0.5)) u.max_fails = R.int(0, 3);
    if (R.chance(0.5)) u.fail_timeout = R.pick(['1s', '5m', '10s']);
    if (R.chance(0.3)) u.cache = false;
    if (R.chance(0.2)) u.maxage = R.pick(['0', '1s', '2m']);
    if (R.chance(0.15)) u.auth = { type: 'bearer', token: 'tok-' + ck };
    if (R.chance(0.1)) u.headers = { 'x-case': ck };
    return u;
  };
  const uplinks = { up: uplink(upKind) };
  if (second) uplinks.up2 = uplink(second);
  const proxies = second ? ['up', 'up2'] : ['up'];
  const pxy = R.chance(0.5) ? proxies.join(' ') : 'up';
  const cfg = {
    self_path: path.join(dir, 'config.yaml'),
    storage: path.join(dir, 'storage'),
    plugins: path.join(dir, 'plugins'),
    web: { enable: R.chance(0.4), title: `reg ${ck}` },
    auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: R.pick([-1, 1, 2, 5, 1000]) } },
    uplinks,
    packages: {
      '@private/*': { access: '$authenticated', publish: '$authenticated', unpublish: '$authenticated' },
      'secret-*': { access: 'alice', publish: 'alice', unpublish: 'alice' },
      'ro-*': { access: '$all', publish: 'nobody-at-all', unpublish: 'nobody-at-all' },
      'local-*': { access: '$all', publish: '$authenticated', unpublish: R.pick(['$authenticated', 'bob']) },
      '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated', proxy: pxy },
    },
    server: { keepAliveTimeout: 1 },
    security: { api: { legacy: true }, web: { sign: { expiresIn: '1h' }, verify: {} } },
    max_body_size: R.pick(['10mb', '10mb', '2kb']),
    logs: { type: 'file', path: os.devNull, format: 'json', level: 'trace' },
    _level: R.pick(LEVELS),
  };
  if (R.chance(0.2)) cfg.security.api.jwt = { sign: { expiresIn: '1d' } };
  if (R.chance(0.3)) cfg.experiments = { token: R.chance(0.7), search: false };
  if (R.chance(0.25)) cfg.notify = { method: 'POST', endpoint: `${upstreams[R.pick(['good', 'error500', 'closed'])]}notify`,
    content: '{"text": "published {{ name }}"}', headers: [{ 'Content-Type': 'application/json' }] };
  return cfg;
}

// one step of a case; state holds the tokens and what was published
async function step(R, port, st) {
  const who = R.pick(USERS);
  const tok = () => { const ks = Object.keys(st.tokens); return ks.length ? st.tokens[R.pick(ks)] : undefined; };
  const pkgName = () => R.pick([`local-${R.pick(['a', 'b', 'c'])}`, `@private/p${R.int(1, 3)}`, `secret-s${R.int(1, 2)}`,
    `ro-r1`, `proxied-${R.pick(['x', 'odd', 'bare', 'etag', 'nowhere', 'missingtgz'])}`]);
  const op = R.pick(['adduser', 'adduser', 'login-bad', 'whoami', 'publish', 'publish', 'publish', 'get', 'get', 'get',
    'getproxied', 'getproxied', 'getproxied', 'tarball', 'tarball', 'tarball', 'disttags', 'unpublish', 'search', 'searchall', 'ping', 'notfound', 'malformed', 'token', 'web',
    'removetarball', 'star', 'profile', 'web']);
  switch (op) {
    case 'adduser': {
      const r = await request(port, 'PUT', `/-/user/org.couchdb.user:${who}`,
        { json: { name: who, password: R.chance(0.85) ? PASSWORDS[who] : 'x', email: `${who}@example.test` } });
      if (r.json && r.json.token) st.tokens[who] = r.json.token;
      return;
    }
    case 'login-bad':
      await request(port, 'PUT', `/-/user/org.couchdb.user:${who}`, { json: { name: who, password: 'wrong-' + R.int(0, 9) }, basic: `${who}:nope` });
      return;
    case 'whoami':
      await request(port, 'GET', '/-/whoami', { token: R.chance(0.8) ? tok() : 'bogus.token.value' });
      return;
    case 'publish': {
      const name = R.chance(0.7) ? pkgName().replace(/^proxied-/, 'local-') : pkgName();
      const version = `1.${R.int(0, 3)}.${R.int(0, 2)}`;
      const bad = R.pick([null, null, null, null, 'noAttachment', 'noVersions', 'badjson', 'twoAttachments', 'noReadme']);
      const t = R.chance(0.85) ? tok() : undefined;
      if (bad === 'badjson') { await request(port, 'PUT', `/${encodeURIComponent(name).replace('%40', '@')}`, { raw: '{"name": ', token: t }); return; }
      const doc = publishDoc(name, version, { [bad]: true, tag: R.chance(0.2) ? 'beta' : 'latest' });
      await request(port, 'PUT', `/${name.replace('/', '%2f')}`, { json: doc, token: t });
      st.published.push([name, version]);
      return;
    }
    case 'get': {
      const name = st.published.length && R.chance(0.5) ? R.pick(st.published)[0] : pkgName();
      await request(port, 'GET', `/${name.replace('/', '%2f')}${R.chance(0.2) ? '/latest' : ''}`, { token: R.chance(0.6) ? tok() : undefined,
        headers: R.chance(0.2) ? { accept: 'application/vnd.npm.install-v1+json' } : {} });
      return;
    }
    case 'getproxied': {
      const name = `${R.pick(['proxied', '@ext/proxied'])}-${R.pick(['x', 'y', 'odd', 'bare', 'etag', 'nowhere', 'missingtgz'])}`;
      const r = await request(port, 'GET', `/${name.replace('/', '%2f')}`, { token: R.chance(0.5) ? tok() : undefined });
      if (r.json && r.json.versions && R.chance(0.6)) {
        const v = R.pick(Object.keys(r.json.versions));
        await request(port, 'GET', `/${name}/-/${name.replace(/^@[^/]+\//, '')}-${v}.tgz`);
      }
      return;
    }
    case 'tarball': {
      const [name, v] = st.published.length && R.chance(0.5) ? R.pick(st.published) : [pkgName(), `1.${R.int(0, 2)}.0`];
      const file = `${name.replace(/^@[^/]+\//, '')}-${v}.tgz`;
      await request(port, 'GET', `/${name}/-/${file}`, { token: R.chance(0.6) ? tok() : undefined });
      return;
    }
    case 'disttags': {
      const [name, v] = st.published.length ? R.pick(st.published) : [pkgName(), '1.0.0'];
      const t = tok();
      const tag = R.pick(['next', 'beta', 'latest', 'canary']);
      const enc = name.replace('/', '%2f');
      const sub = R.pick(['get', 'put', 'put', 'delete', 'merge']);
      if (sub === 'get') await request(port, 'GET', `/-/package/${enc}/dist-tags`, { token: t });
      else if (sub === 'put') await request(port, 'PUT', `/-/package/${enc}/dist-tags/${tag}`, { json: R.chance(0.8) ? v : '9.9.9', token: t });
      else if (sub === 'delete') await request(port, 'DELETE', `/-/package/${enc}/dist-tags/${tag}`, { token: t });
      else await request(port, 'POST', `/-/package/${enc}/dist-tags`, { json: { [tag]: v }, token: t });
      return;
    }
    case 'unpublish': {
      const [name] = st.published.length ? R.pick(st.published) : [pkgName()];
      const enc = name.replace('/', '%2f');
      const t = R.chance(0.8) ? tok() : undefined;
      const meta = await request(port, 'GET', `/${enc}?write=true`, { token: t });
      const rev = (meta.json && meta.json._rev) || '0-0';
      if (R.chance(0.5) && meta.json && meta.json.versions) {
        // remove one version: PUT the document without it, then delete its tarball
        const doc = meta.json;
        const vs = Object.keys(doc.versions);
        const drop = vs[0];
        if (vs.length > 1) delete doc.versions[drop];
        await request(port, 'PUT', `/${enc}/-rev/${rev}`, { json: doc, token: t });
        const file = `${name.replace(/^@[^/]+\//, '')}-${drop}.tgz`;
        await request(port, 'DELETE', `/${name}/-/${file}/-rev/${rev}`, { token: t });
      } else {
        await request(port, 'DELETE', `/${enc}/-rev/${rev}`, { token: t });
      }
      return;
    }
    case 'removetarball': {
      const [name, v] = st.published.length ? R.pick(st.published) : [pkgName(), '1.0.0'];
      await request(port, 'DELETE', `/${name}/-/${name.replace(/^@[^/]+\//, '')}-${v}.tgz/-rev/1-x`, { token: tok() });
      return;
    }
    case 'star': {
      const [name] = st.published.length ? R.pick(st.published) : [pkgName()];
      const t = tok();
      await request(port, 'PUT', `/${name.replace('/', '%2f')}`, { json: { _id: name, users: { [who]: true } }, token: t });
      return;
    }
    case 'search':
      await request(port, 'GET', `/-/v1/search?text=${R.pick(['local', 'pkg', 'remote', 'zzz', ''])}&size=${R.int(1, 20)}`,
        { token: R.chance(0.5) ? tok() : undefined });
      return;
    case 'searchall':
      await request(port, 'GET', R.chance(0.5) ? '/-/all' : `/-/all/since?stale=update_after&startkey=${R.int(0, 9)}`);
      return;
    case 'ping':
      await request(port, 'GET', '/-/ping');
      return;
    case 'notfound':
      await request(port, 'GET', R.pick(['/-/nothing/here', '/local-zz/9.9.9', '/local-zz/-/local-zz-1.0.0.tgz', '/-/v1/nothing']));
      return;
    case 'malformed':
      await request(port, R.pick(['PUT', 'POST']), R.pick(['/-/user/org.couchdb.user:x', '/local-a', '/-/npm/v1/tokens']),
        { raw: R.pick(['{oops', '[]', '"str"', '{"name":1}']), token: tok() });
      return;
    case 'token': {
      const t = R.chance(0.8) ? tok() : undefined;
      const roll = R.rand();
      if (roll < 0.35) await request(port, 'GET', '/-/npm/v1/tokens', { token: t });
      else if (roll < 0.5) await request(port, 'DELETE', `/-/npm/v1/tokens/token/${R.pick(['abc123', 'k' + R.int(0, 9)])}`, { token: t });
      else await request(port, 'POST', '/-/npm/v1/tokens', { json: { password: R.chance(0.6) ? PASSWORDS[who] : 'bad', readonly: R.chance(0.5), cidr_whitelist: [] }, token: t });
      return;
    }
    case 'profile': {
      const ks = Object.keys(st.tokens);
      const u = ks.length ? R.pick(ks) : who;
      if (R.chance(0.3)) { await request(port, 'GET', '/-/npm/v1/user', { token: st.tokens[u] }); return; }
      const next = `${PASSWORDS[u]}-${R.int(1, 9)}`;
      const r = await request(port, 'POST', '/-/npm/v1/user', { token: R.chance(0.85) ? st.tokens[u] : undefined,
        json: { password: { old: R.chance(0.75) ? (st.pw && st.pw[u]) || PASSWORDS[u] : 'wrong', new: R.chance(0.9) ? next : 'x' } } });
      if (r.status === 200) { st.pw = st.pw || {}; st.pw[u] = next; }
      return;
    }
    case 'web':
    {
      const [name] = st.published.length && R.chance(0.7) ? R.pick(st.published) : [pkgName()];
      await request(port, 'GET', R.pick(['/-/verdaccio/data/packages', `/-/verdaccio/data/sidebar/${name}`,
        `/-/verdaccio/data/package/readme/${name}`, `/-/verdaccio/data/search/${R.pick(['local', 'p', 'zz'])}`]),
      { token: R.chance(0.7) ? tok() : undefined });
    }
      return;
    default:
  }
}

async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const dir = fs.mkdtempSync(path.join(TMP, `${ck}-`));
  const cfg = makeConfig(R, dir, ck);
  const t0 = Date.now();
  log.caseId = ck;
  let server = null;
  try {
    const level = cfg._level;
    delete cfg._level;
    const app = await verdaccio.runServer(cfg);
    const lg = require(path.join(INDEX_DIR, 'lib', 'logger')).logger;
    if (lg) lg.level = level;
    server = app;
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const port = server.address().port;
    const st = { tokens: {}, published: [] };
    // most cases start with a user, so later steps can be authorised
    if (R.chance(0.8)) {
      const u = R.pick(USERS);
      const r = await request(port, 'PUT', `/-/user/org.couchdb.user:${u}`, { json: { name: u, password: PASSWORDS[u], email: `${u}@example.test` } });
      if (r.json && r.json.token) st.tokens[u] = r.json.token;
    }
    const n = R.int(3, 15);
    for (let k = 0; k < n; k++) await step(R, port, st);
  } catch (e) {
    if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} failed: ${e && e.message}\n`);
  }
  if (server) await Promise.race([new Promise((r) => server.close(r)), sleep(1500)]);
  if (server && server.closeAllConnections) server.closeAllConnections();
  await sleep(5);
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
  try { fs.rmSync(dir, { recursive: true, force: true }); } catch (e) { /* ignore */ }
}

async function main() {
  const t0 = Date.now();
  for (const k of ['good', 'notfound', 'error500', 'garbage', 'slow', 'reset']) await startUpstream(k);
  upstreams.closed = await closedPort();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  for (const s of upstreamServers) { s.closeAllConnections && s.closeAllConnections(); s.close(); }
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    (escaped ? ` (${escaped} uncaught exceptions)` : '') + '\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); cleanup(); process.exit(1); });
