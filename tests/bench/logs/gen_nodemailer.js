#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `nodemailer` 6.10.1 (plain CommonJS), sending to local
 * `smtp-server` 3.13.6 instances (same author, pinned beside it) and to a few
 * misbehaving raw TCP servers, all on 127.0.0.1 in this process.
 *
 *   node gen_nodemailer.js --repo                    # prints the dir to index
 *   node gen_nodemailer.js --out .deps/logs/nodemailer.csv.gz [--cases 1000] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/nodemailer (truth paths `nodemailer/lib/...`).
 *
 * Logging: nodemailer logs through its own bunyan-style shim.  Every
 * component does `this.logger = shared.getLogger(this.options, {component})`
 * and then `this.logger.info({tnx, ...}, 'Sending message %s to <%s>', id, rcpt)`;
 * getLogger returns one arrow function per level that forwards to
 * `shared._logFunc(logger, level, defaults, data, message, ...args)`, which
 * merges the component defaults into the data object and calls the real
 * logger.  The generator passes its own logger object
 * `{trace, debug, info, warn, error, fatal}` as the `logger` option (with
 * `debug: true` in most cases, so the SMTP conversation is logged too).
 * Activity = the text part of what nodemailer's own default console logger
 * (`logger: true`) prints for the record: `util.format(message, ...args)` split
 * into lines, each line prefixed with `C: ` / `S: ` when the record's tnx is
 * `client` / `server` (that logger's direction marker), lines joined with
 * `\n`; the console logger's timestamp, padded level and `[#cid] [sid]`
 * connection/session ids are not part of it.  level = the shim level
 * upper-cased (TRACE..FATAL); logger = the record's `component`
 * (smtp-connection, smtp-transport, smtp-pool, mail, ...).
 * Emitter: the first stack frame inside nodemailer outside the shim;
 * `lib/shared/index.js` contains no logging call of its own, so all of its
 * frames on the logging path (the per-level arrow and `_logFunc`, both pure
 * forwarding wrappers) are skipped and every record has code.wrapped=1.
 *
 * A case is one transport lifetime with its own seeded PRNG: createTransport
 * with one of
 *   - SMTP (≈50%) to one of: an open server (auth optional, STARTTLS with a
 *     throw-away self-signed cert, 64 KB size limit, rejected / temp-failed
 *     senders and recipients, spam-trap data rejection), an auth-required
 *     server (PLAIN / LOGIN / CRAM-MD5 / XOAUTH2, good and bad passwords), an
 *     implicit-TLS server, a server without STARTTLS, one without AUTH, an LMTP
 *     server, a tiny size limit, a slow greeting, a slow DATA answer, a
 *     one-client server; raw TCP servers that close at once, greet with
 *     garbage, answer 421, or never greet; a closed port.  Client options
 *     vary: secure / requireTLS / ignoreTLS / opportunisticTLS, certificate
 *     checks on or off, auth methods, short greeting/socket timeouts,
 *     debug on/off, LMTP, an HTTP CONNECT proxy (working or refusing), a
 *     caller-provided socket (getSocket), OAuth2 with a local token endpoint
 *     (valid token, error, broken JSON);
 *   - pooled SMTP (≈20%: maxConnections / maxMessages / rate limits, messages
 *     sent concurrently, close while busy);
 *   - streamTransport, jsonTransport, the sendmail transport with fake
 *     sendmail scripts in a temp dir (success, exit 1, exit without reading
 *     stdin, missing binary), a custom transport emitting 'log' / 'error'.
 * It then runs `verify()` and/or sends 1-5 messages (text / html /
 * attachments from strings, files, missing files, local URLs and data URIs,
 * DSN, envelope overrides, raw messages, DKIM signing with a generated key,
 * compile/stream plugins that fail, callbacks that throw), then closes.
 * Each case runs in its own AsyncLocalStorage context: records from async
 * work of an earlier case (a pool still retrying) are dropped.  Exceptions
 * thrown on purpose by callbacks that escape nodemailer are counted in the
 * summary line.
 *
 * Fixtures: a throw-away self-signed certificate made with `openssl` and a
 * DKIM key from node:crypto, fake sendmail scripts, all in a temp dir removed
 * at exit.  smtp-server's 100 ms "early talker" pause before each greeting is
 * shortened to 0 and its sockets get TCP_NODELAY (speed only; the client side
 * is untouched).  Debugging aids: PMRAG_TIMING=1 prints one line per case
 * (kind, duration, events) to stderr; PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const util = require('util');
const http = require('http');
const crypto = require('crypto');
const { execFileSync } = require('child_process');
const { AsyncLocalStorage } = require('async_hooks');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'nodemailer', 1000);
}

const args = parseArgs(process.argv);
const NM_DIR = path.join(args.deps, 'node_modules', 'nodemailer');
if (args.repo) {
  if (!fs.existsSync(path.join(NM_DIR, 'package.json'))) {
    process.stderr.write(`missing ${NM_DIR}: run npm ci in ${args.deps}\n`);
    process.exit(1);
  }
  process.stdout.write(fs.realpathSync(NM_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_nodemailer.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const cap = require('./_capture');
const nodemailer = require(NM_DIR);
const { SMTPServer } = require(path.join(args.deps, 'node_modules', 'smtp-server'));

// The server is a fixture: its 100 ms "early talker" pause before each greeting
// is shortened to 0 (every SMTP connection would otherwise cost 100 ms), and
// its sockets get TCP_NODELAY (multi-line replies otherwise stall on delayed ACKs).
{
  const { SMTPConnection: ServerConn } = require(path.join(args.deps, 'node_modules', 'smtp-server', 'lib', 'smtp-connection.js'));
  const init = ServerConn.prototype.init;
  ServerConn.prototype.init = function () {
    const st = global.setTimeout;
    global.setTimeout = (fn, ms, ...rest) => st(fn, ms === 100 ? 0 : ms, ...rest);
    try { return init.call(this); } finally { global.setTimeout = st; }
  };
}

const log = new cap.EventLog(args.out, {
  indexDir: NM_DIR,
  wrappers: [['nodemailer/lib/shared/index.js', '*']],
});

// ---------------------------------------------------------------------------
// The bunyan-like logger handed to nodemailer.
const caseStore = new AsyncLocalStorage();

function render(entry, message, rest) {
  let text;
  try { text = util.format(message, ...rest); } catch (e) { text = String(message); }
  let prefix = '';
  if (entry && entry.tnx === 'server') prefix = 'S: ';
  else if (entry && entry.tnx === 'client') prefix = 'C: ';
  return text.split(/\r?\n/).map((l) => prefix + l).join('\n');
}

function loggerMethod(level) {
  const LEVEL = level.toUpperCase();
  const fn = function capturedLog(entry, message, ...rest) {
    if (log.caseId === null) return;
    const owner = caseStore.getStore();  // async work of an earlier case: not this case's
    if (owner !== undefined && owner !== log.caseId) return;
    log.record(render(entry, message, rest), LEVEL, (entry && entry.component) || 'nodemailer', fn);
  };
  return fn;
}
const LOGGER = {};
for (const l of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) LOGGER[l] = loggerMethod(l);

process.on('unhandledRejection', () => {});
let escaped = 0;
process.on('uncaughtException', (e) => {
  // a callback that throws on purpose may escape nodemailer's guard (and its
  // pool's close() path can then fail on its own); count it and keep going
  const st = String((e && e.stack) || e);
  if (/^Error: planned callback failure/.test(st) || st.includes(NM_DIR) || st.includes(TMP)) escaped++;
  else process.stderr.write(`uncaught: ${st}\n`);
});

// ---------------------------------------------------------------------------
// Fixtures: temp dir, throw-away certificate, DKIM key, fake sendmail scripts.
const { dir: TMP, cleanup } = require('./_capture').tempDir('nodemailer');

execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(TMP, 'key.pem'),
  '-out', path.join(TMP, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
const KEY = fs.readFileSync(path.join(TMP, 'key.pem'));
const CERT = fs.readFileSync(path.join(TMP, 'cert.pem'));
const DKIM_KEY = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey
  .export({ type: 'pkcs1', format: 'pem' });

const SENDMAIL = {
  ok: '#!/bin/sh\ncat > /dev/null\nexit 0\n',
  fail: '#!/bin/sh\ncat > /dev/null\necho "sendmail: queue file write error" >&2\nexit 75\n',
  early: '#!/bin/sh\nexit 1\n',
  notfound: '#!/bin/sh\ncat > /dev/null\nexit 127\n',
};
for (const [k, body] of Object.entries(SENDMAIL)) {
  fs.writeFileSync(path.join(TMP, `sendmail-${k}`), body, { mode: 0o755 });
}
fs.writeFileSync(path.join(TMP, 'report.csv'), 'id,value\n1,2\n3,4\n');
fs.writeFileSync(path.join(TMP, 'big.bin'), crypto.randomBytes(90 * 1024));

// ---------------------------------------------------------------------------
// Servers.
const USERS = { alice: 'secret', bob: 'hunter2' };
const servers = {};
const rawServers = [];
let CLOSED_PORT = 0;
let PROXY_PORT = 0;
let TOKEN_PORT = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function smtpHandlers(extra) {
  return Object.assign({
    logger: false,
    disableReverseLookup: true,
    name: 'mx.test.local',
    key: KEY,
    cert: CERT,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN', 'CRAM-MD5', 'XOAUTH2'],
    onAuth(auth, session, cb) {
      if (auth.method === 'XOAUTH2') {
        if (auth.username in USERS && /^tok-/.test(auth.accessToken || '')) return cb(null, { user: auth.username });
        return cb(null, { data: { status: '401', schemes: 'bearer', scope: 'mail' } });
      }
      if (auth.method === 'CRAM-MD5') {
        if (auth.username in USERS && auth.validatePassword(USERS[auth.username])) return cb(null, { user: auth.username });
        return cb(new Error('Invalid username or password'));
      }
      if (USERS[auth.username] === auth.password) return cb(null, { user: auth.username });
      const err = new Error('Invalid username or password');
      err.responseCode = 535;
      return cb(err);
    },
    onMailFrom(address, session, cb) {
      if (/blocked/.test(address.address)) return cb(Object.assign(new Error('Sender blocked by policy'), { responseCode: 550 }));
      if (/temp/.test(address.address)) return cb(Object.assign(new Error('Greylisted, try again later'), { responseCode: 451 }));
      return cb();
    },
    onRcptTo(address, session, cb) {
      if (/^nobody@/.test(address.address)) return cb(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      if (/^full@/.test(address.address)) return cb(Object.assign(new Error('Mailbox full'), { responseCode: 452 }));
      return cb();
    },
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        if (stream.sizeExceeded) return cb(Object.assign(new Error('Message exceeds fixed maximum message size'), { responseCode: 552 }));
        if (session.envelope.rcptTo.some((r) => /spamtrap/.test(r.address))) {
          return cb(Object.assign(new Error('Message rejected as spam'), { responseCode: 554 }));
        }
        if (this.lmtp) return cb(null, session.envelope.rcptTo.map((r, i) => (i % 2 ? new Error('Over quota') : 'Delivered')));
        return cb(null, 'Queued as ' + crypto.randomBytes(4).toString('hex'));
      });
    },
  }, extra || {});
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port || 0, '127.0.0.1', () => resolve(server.server ? server.server.address().port : server.address().port));
  });
}

/*
 * A small line-based SMTP responder with one quirk each:
 *   badehlo      rejects EHLO and HELO
 *   starttls454  offers STARTTLS, then refuses it (454)
 *   heloonly     rejects EHLO, accepts HELO
 *   dropdata     drops the connection after the message body
 *   midclose     drops the connection after the first RCPT TO
 */
function scripted(sock, mode) {
  let inData = false;
  let buf = '';
  sock.write('220 quirky.test.local ESMTP ready\r\n');
  sock.on('data', (d) => {
    buf += d.toString('latin1');
    let idx;
    while ((idx = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      if (inData) {
        if (line === '.') {
          inData = false;
          if (mode === 'dropdata') { sock.destroy(); return; }
          sock.write('250 2.0.0 Ok: queued\r\n');
        }
        continue;
      }
      const cmd = line.split(' ')[0].toUpperCase();
      if (cmd === 'EHLO') {
        if (mode === 'badehlo' || mode === 'heloonly') sock.write('502 5.5.2 Error: command not recognized\r\n');
        else sock.write('250-quirky.test.local\r\n' + (mode === 'starttls454' ? '250-STARTTLS\r\n' : '') + '250 8BITMIME\r\n');
      } else if (cmd === 'HELO') {
        sock.write(mode === 'badehlo' ? '500 5.5.1 Command unrecognized\r\n' : '250 quirky.test.local\r\n');
      } else if (cmd === 'STARTTLS') {
        sock.write('454 4.7.0 TLS not available due to local problem\r\n');
      } else if (cmd === 'MAIL' || cmd === 'RSET' || cmd === 'NOOP') {
        sock.write('250 2.1.0 Ok\r\n');
      } else if (cmd === 'RCPT') {
        if (mode === 'midclose') { sock.destroy(); return; }
        sock.write('250 2.1.5 Ok\r\n');
      } else if (cmd === 'DATA') {
        inData = true;
        sock.write('354 End data with <CR><LF>.<CR><LF>\r\n');
      } else if (cmd === 'QUIT') {
        sock.end('221 2.0.0 Bye\r\n');
        return;
      } else {
        sock.write('502 5.5.2 Error: command not recognized\r\n');
      }
    }
  });
}

async function startServers() {
  const defs = {
    open: { authOptional: true, size: 64 * 1024 },
    auth: { authOptional: false },
    tls: { secure: true, authOptional: true },
    notls: { authOptional: true, disabledCommands: ['STARTTLS'], hideSTARTTLS: true },
    noauth: { disabledCommands: ['AUTH'], authOptional: true },
    lmtp: { lmtp: true, authOptional: true },
    tiny: { authOptional: true, size: 2000 },
    slowgreet: {
      authOptional: true,
      onConnect(session, cb) { setTimeout(cb, 250); },
    },
    slowdata: { authOptional: true },
    oneclient: { authOptional: true, maxClients: 1 },
  };
  for (const [name, opts] of Object.entries(defs)) {
    const h = smtpHandlers(opts);
    if (name === 'lmtp') {
      const base = h.onData;
      h.onData = function (stream, session, cb) { return base.call({ lmtp: true }, stream, session, cb); };
    }
    if (name === 'slowdata') {
      const base = h.onData;
      h.onData = (stream, session, cb) => base.call({}, stream, session, (...a) => setTimeout(() => cb(...a), 300));
    }
    const srv = new SMTPServer(h);
    srv.on('error', () => {});
    srv.server.on('connection', (sock) => sock.setNoDelay(true));
    servers[name] = { srv, port: await listen(srv) };
  }
  // raw TCP servers that do not behave
  const raw = {
    closer: (s) => s.destroy(),
    garbage: (s) => s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'),
    busy: (s) => s.end('421 mx.test.local Service not available, too busy\r\n'),
    silent: (s) => { s.on('data', () => {}); s.setTimeout(3000, () => s.destroy()); },
    badehlo: (s) => scripted(s, 'badehlo'),
    starttls454: (s) => scripted(s, 'starttls454'),
    heloonly: (s) => scripted(s, 'heloonly'),
    dropdata: (s) => scripted(s, 'dropdata'),
    midclose: (s) => scripted(s, 'midclose'),
  };
  for (const [name, fn] of Object.entries(raw)) {
    const srv = net.createServer({ noDelay: true }, (s) => { s.on('error', () => {}); fn(s); });
    rawServers.push(srv);
    servers[name] = { srv, port: await listen(srv) };
  }
  // closed port
  const tmpSrv = net.createServer();
  CLOSED_PORT = await listen(tmpSrv);
  await new Promise((r) => tmpSrv.close(r));
  // HTTP CONNECT proxy (refuses targets on the closed port and every 'deny' user agent)
  const proxy = http.createServer((rq, rs) => { rs.writeHead(405); rs.end(); });
  proxy.on('connect', (rq, sock, head) => {
    sock.on('error', () => {});
    const [host, port] = (rq.url || '').split(':');
    if (host !== '127.0.0.1' || Number(port) === CLOSED_PORT || (rq.headers['proxy-authorization'] || '').length) {
      sock.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const up = net.connect(Number(port), host, () => {
      sock.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head && head.length) up.write(head);
      up.pipe(sock);
      sock.pipe(up);
    });
    up.on('error', () => sock.destroy());
  });
  rawServers.push(proxy);
  PROXY_PORT = await listen(proxy);
  // OAuth2 token endpoint + attachment URLs
  const web = http.createServer((rq, rs) => {
    let body = '';
    rq.on('data', (d) => { body += d; });
    rq.on('end', () => {
      const u = rq.url || '/';
      if (u.startsWith('/token/ok')) {
        rs.writeHead(200, { 'content-type': 'application/json' });
        rs.end(JSON.stringify({ access_token: 'tok-' + crypto.randomBytes(6).toString('hex'), expires_in: 3600, token_type: 'Bearer' }));
      } else if (u.startsWith('/token/denied')) {
        rs.writeHead(400, { 'content-type': 'application/json' });
        rs.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }));
      } else if (u.startsWith('/token/broken')) {
        rs.writeHead(200, { 'content-type': 'application/json' });
        rs.end('{"access_token": ');
      } else if (u.startsWith('/token/null')) {
        rs.writeHead(200, { 'content-type': 'application/json' });
        rs.end('null');
      } else if (u.startsWith('/token/empty')) {
        rs.writeHead(200, { 'content-type': 'application/json' });
        rs.end('{}');
      } else if (u.startsWith('/files/ok')) {
        rs.writeHead(200, { 'content-type': 'text/plain' });
        rs.end('remote attachment body\n');
      } else {
        rs.writeHead(404);
        rs.end('not found');
      }
    });
  });
  rawServers.push(web);
  TOKEN_PORT = await listen(web);
}

async function stopServers() {
  for (const { srv } of Object.values(servers)) {
    if (srv instanceof SMTPServer) await new Promise((r) => srv.close(r));
  }
  for (const s of rawServers) {
    if (s.closeAllConnections) s.closeAllConnections();
    await new Promise((r) => s.close(() => r()));
  }
}

// ---------------------------------------------------------------------------
// Messages.
function address(R, role) {
  const good = role === 'from' ? ['alice@example.test', '"Bob B." <bob@example.test>', 'noreply@shop.test']
    : ['carol@example.test', 'dave@corp.test', '"Eve" <eve@corp.test>', 'frank@example.test'];
  const bad = role === 'from' ? ['blocked@spam.test', 'temp@grey.test', '-oQ/tmp@evil.test']
    : ['nobody@example.test', 'full@example.test', 'spamtrap@example.test', 'not-an-address'];
  return R.chance(0.18) ? R.pick(bad) : R.pick(good);
}

function buildMessage(R, i, opts) {
  const m = { from: address(R, 'from'), to: [], subject: `Report ${i} ` + R.pick(['weekly', 'ünïcödé ✓', 'x'.repeat(R.int(5, 80))]) };
  const nTo = R.pick([1, 1, 1, 2, 3, 5]);
  for (let k = 0; k < nTo; k++) m.to.push(address(R, 'to'));
  if (R.chance(0.2)) m.cc = address(R, 'to');
  if (R.chance(0.1)) m.bcc = address(R, 'to');
  const body = R.pick(['text', 'text', 'html', 'both', 'amp', 'raw', 'empty']);
  if (body === 'text' || body === 'both') m.text = 'Hello,\n.\nline with a leading dot\n' + 'lorem ipsum '.repeat(R.int(1, 40));
  if (body === 'html' || body === 'both') m.html = '<p>Hello <b>world</b></p>' + '<p>x</p>'.repeat(R.int(0, 30));
  if (body === 'amp') { m.text = 'plain'; m.amp = '<!doctype html><html ⚡4email><body>hi</body></html>'; }
  if (body === 'raw') {
    return { envelope: { from: 'alice@example.test', to: [address(R, 'to')] },
      raw: `From: alice@example.test\r\nTo: carol@example.test\r\nSubject: raw ${i}\r\n\r\nraw body\r\n` };
  }
  const nAtt = R.pick([0, 0, 0, 1, 1, 2, 3]);
  if (nAtt) m.attachments = [];
  for (let k = 0; k < nAtt; k++) {
    const a = R.pick(['string', 'buffer', 'file', 'missing', 'url', 'url404', 'datauri', 'big', 'stream']);
    if (a === 'string') m.attachments.push({ filename: 'notes.txt', content: 'some notes ' + k });
    else if (a === 'buffer') m.attachments.push({ filename: 'data.bin', content: crypto.randomBytes(R.int(10, 3000)) });
    else if (a === 'file') m.attachments.push({ path: path.join(TMP, 'report.csv') });
    else if (a === 'missing') m.attachments.push({ path: path.join(TMP, 'no-such-file.pdf') });
    else if (a === 'url') m.attachments.push({ filename: 'remote.txt', href: `http://127.0.0.1:${TOKEN_PORT}/files/ok` });
    else if (a === 'url404') m.attachments.push({ filename: 'gone.txt', href: `http://127.0.0.1:${TOKEN_PORT}/files/gone` });
    else if (a === 'datauri') m.attachments.push({ path: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' });
    else if (a === 'big') m.attachments.push({ path: path.join(TMP, 'big.bin') });
    else {
      m.attachments.push({ filename: 'stream.txt', content: fs.createReadStream(path.join(TMP, 'report.csv')) });
    }
  }
  if (R.chance(0.1)) m.disableFileAccess = true;
  if (R.chance(0.08)) m.disableUrlAccess = true;
  if (opts.smtp && R.chance(0.15)) m.dsn = { id: 'msg-' + i, return: R.pick(['headers', 'full']), notify: R.pick([['success'], ['failure', 'delay'], 'never']), recipient: 'alice@example.test' };
  if (R.chance(0.1)) m.envelope = { from: R.pick(['bounce@example.test', 'blocked@spam.test']), to: [address(R, 'to')] };
  if (R.chance(0.08)) m.priority = R.pick(['high', 'low']);
  if (R.chance(0.08)) m.list = { unsubscribe: 'https://example.test/unsub', id: 'news.example.test' };
  if (R.chance(0.06)) m.icalEvent = { method: 'request', content: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR' };
  if (R.chance(0.1)) m.dkim = { domainName: 'example.test', keySelector: R.pick(['s1', '2024']), privateKey: R.chance(0.9) ? DKIM_KEY : 'not a key' };
  if (R.chance(0.05)) m.textEncoding = R.pick(['base64', 'quoted-printable']);
  return m;
}

// ---------------------------------------------------------------------------
// Transports.
const RAW_TARGETS = new Set(['closer', 'garbage', 'busy', 'silent', 'badehlo', 'closed']);

function smtpOptions(R, pooled) {
  const target = R.pick(['open', 'open', 'open', 'open', 'auth', 'auth', 'auth', 'tls', 'tls', 'notls', 'noauth', 'lmtp',
    'tiny', 'slowgreet', 'slowdata', 'oneclient', 'closer', 'garbage', 'busy', 'silent', 'badehlo', 'closed',
    'starttls454', 'starttls454', 'heloonly', 'dropdata', 'midclose']);
  const o = {
    host: '127.0.0.1',
    port: target === 'closed' ? CLOSED_PORT : servers[target].port,
    logger: LOGGER,
    debug: R.chance(0.8),
    name: R.pick([undefined, 'client.example.test', 'laptop']),
    connectionTimeout: R.pick([300, 1000]),
    greetingTimeout: R.pick([150, 400]),
    socketTimeout: R.pick([200, 600]),
  };
  if (R.chance(0.05)) { o.debug = false; o.transactionLog = true; }
  if (target === 'tls') o.secure = R.chance(0.85);
  else if (R.chance(0.08)) o.secure = true;  // implicit TLS against a plain server
  if (R.chance(0.15)) o.requireTLS = true;
  if (R.chance(0.1)) o.ignoreTLS = true;
  if (R.chance(target === 'starttls454' ? 0.5 : 0.05)) o.opportunisticTLS = true;
  o.tls = { rejectUnauthorized: R.chance(0.1) };
  if (target === 'lmtp' || R.chance(0.03)) o.lmtp = target === 'lmtp' ? R.chance(0.85) : true;
  const authKind = target === 'auth' ? R.pick(['good', 'good', 'bad', 'cram', 'login', 'oauth', 'oauthurl', 'none'])
    : R.pick(['none', 'none', 'none', 'good', 'bad', 'cram', 'login', 'oauthurl']);
  const user = R.pick(['alice', 'bob']);
  if (authKind === 'good') o.auth = { user, pass: USERS[user] };
  else if (authKind === 'bad') o.auth = { user, pass: 'wrong-' + R.int(1, 99) };
  else if (authKind === 'cram') { o.auth = { user, pass: R.chance(0.8) ? USERS[user] : 'nope' }; o.authMethod = 'CRAM-MD5'; }
  else if (authKind === 'login') { o.auth = { user, pass: R.chance(0.8) ? USERS[user] : 'nope' }; o.authMethod = 'LOGIN'; }
  else if (authKind === 'oauth') o.auth = { type: 'OAuth2', user, accessToken: R.chance(0.8) ? 'tok-static' : 'expired' };
  else if (authKind === 'oauthurl') {
    o.auth = { type: 'OAuth2', user, clientId: 'cid', clientSecret: 'csecret', refreshToken: 'rt-' + R.int(1, 9),
      accessUrl: `http://127.0.0.1:${TOKEN_PORT}/token/${R.pick(['ok', 'ok', 'denied', 'broken', 'empty', 'null', 'missing'])}` };
    if (R.chance(0.3)) o.auth.accessToken = 'stale';
    if (R.chance(0.3)) o.auth.expires = Date.now() - 1000;
  }
  if (R.chance(0.06)) o.proxy = `http://${R.chance(0.3) ? 'u:p@' : ''}127.0.0.1:${PROXY_PORT}`;
  if (pooled) {
    o.pool = true;
    o.maxConnections = R.pick([1, 2, 3]);
    o.maxMessages = R.pick([1, 2, 100]);
    if (R.chance(0.1)) { o.rateDelta = 100; o.rateLimit = R.pick([1, 2]); }
  }
  return { o, target, socket: !pooled && !o.proxy && R.chance(0.06), raw: RAW_TARGETS.has(target) };
}

function sendOne(tr, msg, R) {
  const mode = R.pick(['promise', 'promise', 'callback', 'throwing']);
  return new Promise((resolve) => {
    const done = () => resolve();
    const t = setTimeout(done, 1200);
    try {
      if (mode === 'promise') {
        tr.sendMail(msg).then(() => { clearTimeout(t); done(); }, () => { clearTimeout(t); done(); });
      } else {
        tr.sendMail(msg, (err) => {
          clearTimeout(t);
          done();
          if (mode === 'throwing') throw new Error('planned callback failure' + (err ? ' after error' : ''));
        });
      }
    } catch (e) {
      clearTimeout(t);
      done();
    }
  });
}

function verify(tr) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 2500);
    try {
      const p = tr.verify();
      if (p && p.then) p.then(() => { clearTimeout(t); resolve(); }, () => { clearTimeout(t); resolve(); });
      else { clearTimeout(t); resolve(); }
    } catch (e) { clearTimeout(t); resolve(); }
  });
}

function addPlugins(R, tr) {
  if (R.chance(0.12)) {
    tr.use('compile', (mail, cb) => {
      if (R.chance(0.3)) return cb(new Error('template variable "name" is undefined'));
      mail.data.headers = Object.assign({}, mail.data.headers, { 'X-Campaign': 'spring' });
      return cb();
    });
  }
  if (R.chance(0.08)) {
    tr.use('stream', (mail, cb) => (R.chance(0.4) ? cb(new Error('virus scanner unavailable')) : cb()));
  }
}

async function smtpCase(R, i, pooled) {
  const { o, socket, raw } = smtpOptions(R, pooled);
  const defaults = R.chance(0.15) ? { from: 'defaults@example.test', headers: { 'X-Mailer-Case': String(i) } } : undefined;
  if (pooled && R.chance(0.1)) o.dkim = { domainName: 'example.test', keySelector: 's1', privateKey: DKIM_KEY };
  const tr = nodemailer.createTransport(o, defaults);
  tr.on('error', () => {});
  if (socket) {
    tr.getSocket = (opts, cb) => {
      const s = net.connect(opts.port, opts.host, () => cb(null, { connection: s }));
      s.once('error', (e) => cb(e));
    };
  }
  addPlugins(R, tr);
  if (R.chance(pooled ? 0.15 : 0.3)) await verify(tr);
  const closeEarly = R.chance(0.08);
  const n = raw ? R.int(1, 2) : R.int(1, pooled ? 5 : 4);  // raw servers fail every message, slowly
  const msgs = [];
  for (let k = 0; k < n; k++) msgs.push(buildMessage(R, k, { smtp: true }));
  if (closeEarly) {  // close while the messages are still being sent
    const p = Promise.all(msgs.map((m) => sendOne(tr, m, R)));
    await sleep(R.pick([0, 2, 10]));
    tr.close();
    await p;
  } else if ((pooled && R.chance(0.75)) || R.chance(0.25)) {
    // a pool re-queues messages of dropped connections every 100 ms: give up
    // (close the pool) after a while against servers that never work
    await Promise.race([Promise.all(msgs.map((m) => sendOne(tr, m, R))), sleep(pooled && raw ? 350 : 1200)]);
  } else {
    for (const m of msgs) await sendOne(tr, m, R);
  }
  if (pooled && R.chance(0.3)) { tr.isIdle(); await sleep(R.int(5, 50)); }
  tr.close();
  if (pooled) await sleep(5);
}

async function otherCase(R, i, kind) {
  let tr;
  if (kind === 'stream') {
    tr = nodemailer.createTransport({ streamTransport: true, buffer: R.chance(0.6), newline: R.pick(['unix', 'windows', undefined]), logger: LOGGER, debug: R.chance(0.5) });
  } else if (kind === 'json') {
    tr = nodemailer.createTransport({ jsonTransport: true, skipEncoding: R.chance(0.3), logger: LOGGER });
  } else if (kind === 'sendmail') {
    const which = R.pick(['ok', 'ok', 'ok', 'fail', 'early', 'notfound', 'missing']);
    tr = nodemailer.createTransport({ sendmail: true, path: path.join(TMP, `sendmail-${which}`), newline: R.pick(['unix', 'windows']),
      args: R.chance(0.2) ? ['-t'] : undefined, logger: LOGGER, debug: R.chance(0.5) });
  } else {  // a custom transport object that uses the deprecated 'log' event interface
    const EventEmitter = require('events');
    const custom = new EventEmitter();
    Object.assign(custom, {
      options: { logger: LOGGER },
      name: 'CustomRelay', version: '0.1.' + R.int(0, 9),
      send(mail, cb) {
        this.emit('log', { type: 'relay', message: `queued ${mail.data.subject}` });
        if (R.chance(0.3)) {
          const err = new Error('relay connection lost');
          this.emit('error', err);
          return cb(err);
        }
        return setImmediate(() => cb(null, { messageId: mail.message.messageId(), envelope: mail.message.getEnvelope() }));
      },
    });
    tr = nodemailer.createTransport(custom);
    // createTransport(plugin) passes no options to the Mailer, so its logger is
    // the silent one; give it one built by nodemailer's own getLogger
    tr.logger = require(path.join(NM_DIR, 'lib', 'shared')).getLogger({ logger: LOGGER }, { component: 'mail' });
    tr.on('error', () => {});
  }
  addPlugins(R, tr);
  if (R.chance(0.25)) { tr.verify(); tr.isIdle(); }  // missing on these transports: a warning
  const n = R.int(1, 5);
  for (let k = 0; k < n; k++) await sendOne(tr, buildMessage(R, k, {}), R);
  if (kind === 'custom' && R.chance(0.3)) tr.close();
  else if (tr.close) tr.close();
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const kind = R.pick(['smtp', 'smtp', 'smtp', 'smtp', 'smtp', 'pool', 'pool', 'stream', 'json', 'sendmail', 'custom']);
  const t0 = Date.now();
  log.caseId = ck;
  try {
    await caseStore.run(ck, () => {
      if (kind === 'smtp') return smtpCase(R, i, false);
      if (kind === 'pool') return smtpCase(R, i, true);
      return otherCase(R, i, kind);
    });
  } catch (e) {
    // keep what the case logged
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${kind} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
}

async function main() {
  const t0 = Date.now();
  await startServers();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  await Promise.race([stopServers(), sleep(3000)]);
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    (escaped ? ` (${escaped} exceptions escaped from callbacks)` : '') + '\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); cleanup(); process.exit(1); });
