#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `ftp-srv` 4.6.3 (an FTP server in plain CommonJS, logging
 * through npm `bunyan` 1.8.15) driven by npm `basic-ftp` 5.3.1 (an FTP client,
 * TypeScript compiled to CommonJS, with a verbose log of its own), both in
 * this process on 127.0.0.1.
 *
 *   node gen_ftpsrv.js --repo                    # prints the dir to index
 *   node gen_ftpsrv.js --out .deps/logs/ftpsrv.csv.gz [--cases 500] [--seed 1] [--deps DIR]
 *
 * Indexed dir: `<deps>/ftp-pkgs`, prepared by --repo (and by every run) as
 * verbatim copies of the `.js` files of both packages:
 * node_modules/ftp-srv   -> ftp-pkgs/ftp-srv/   (src/, ftp-srv.js, bin/)
 * node_modules/basic-ftp -> ftp-pkgs/basic-ftp/ (dist/, `.d.ts` left out).
 * The code runs from node_modules; stack frames are mapped onto the copies
 * (same lines), so truth paths look like `ftp-pkgs/ftp-srv/src/connection.js`
 * and `ftp-pkgs/basic-ftp/dist/FtpContext.js`.  Records emitted anywhere
 * else (bluebird, the generator) are dropped.
 *
 * Logging, server side: ftp-srv logs through the bunyan logger the
 * application passes as the `log` option: `this.log.info({protocol, ip,
 * port}, 'Listening')`, a child per connection (`options.log.child({id, ip})`)
 * and per command (`this.connection.log.child({directive})`, handed to every
 * command handler as `log`, and once more `log.child({subverb})` for SITE).
 * Calls are bunyan's: a fields object first (`log.trace({command}, 'Handle
 * command')`, `this.log.trace({port, encoding, message}, 'Reply')`), an Error
 * first (`log.error(err)` in the catch of almost every command handler, so
 * the message is the error's own text: ENOENT texts with this machine's
 * paths, `Not a valid directory`, `No connector setup, send PASV or PORT`,
 * the custom file systems' texts below), an array (`this.log.trace(messages)`,
 * rendered by util.format as `[ 'USER alice' ]`), a printf-style tail
 * (`this.log.info('Closing connections:', n)`, and `log.error('Satisfy
 * Parameters Error', {error})` which util.format renders with the object).
 * Each case gives its server its own bunyan logger (name `ftp-srv`, as
 * ftp-srv's default logger, level trace in most cases, sometimes debug or
 * info; a raw stream that discards) and `_emit` of bunyan is hooked
 * (`hookBunyan` in _capture.js).  Activity = the record's `msg`; level =
 * bunyan's level name upper-cased; logger = `ftp-srv`, then `/DIRECTIVE`
 * when the record has the command child's `directive` field, then
 * `/SUBVERB` (`ftp-srv/SITE/CHMOD`).  ftp-srv has no logging wrapper.
 *
 * Logging, client side: basic-ftp logs through `FTPContext.log(message)`,
 * which prints with console.log when the context's `verbose` is set
 * (`client.ftp.verbose = true`, as its README says to debug): every command
 * sent (`> USER alice`, `> PASS ###`), every chunk of reply text received
 * (`< 230 ...`, raw, with its line ends), connection and TLS lines
 * (`Connected to 127.0.0.1:PORT (No encryption)`, `Control socket is using:
 * TLSv1.3`), the transfer strategy search, and a whole directory listing
 * (`this.ftp.log(text)` in `_requestListWithCommand`).  console.log/info/
 * warn/error are replaced by functions that record what they print
 * (util.format, as Node prints) when the call site is in the indexed dir
 * (logger `console`, level INFO for log/info, WARN, ERROR); anything else
 * printed is swallowed and counted as stray.  `FTPContext.log` only tests
 * `verbose` and prints its argument: it is declared a wrapper, so its
 * caller is the emitter and every basic-ftp record has code.wrapped=1.
 * Emitter: the first stack frame outside bunyan, _capture.js and the console
 * replacement, after the wrapper.
 *
 * A case is one FTP server lifetime with its own seeded PRNG: an `FtpSrv`
 * on a free port with random options (explicit FTPS with a throw-away
 * `openssl` certificate, sometimes implicit FTPS on an `ftps://` URL;
 * `pasv_url` a string, a function, a function that throws, or unset; a
 * passive port range of 1-21 ports, now and then all taken by listeners of
 * the generator; anonymous logins on or a named anonymous user; a greeting;
 * `file_format` `ls`, `ep`, a function of the application's, or an unknown
 * name; a command blacklist or whitelist; an idle timeout), a `login`
 * listener (some cases have none) with five users, wrong passwords, a slow
 * answer, a listener that throws, per-user command blacklists, and per-user
 * file systems: ftp-srv's own over a fresh directory tree, a read-only
 * subclass whose writes, deletes, renames, mkdirs and chmods fail with
 * `Permission denied`, a flaky one (a locked directory, reads that fail
 * half-way, writes that run out of quota, unique names of its own); then
 * one or two basic-ftp client sessions (plain, explicit or implicit TLS,
 * sometimes verbose off, EPSV or forced PASV, right or wrong credentials,
 * anonymous) of 1-9 operations: listings, cd to existing, missing and file
 * paths, cdup, pwd, uploads, appends, downloads (from an offset with REST
 * too), renames, deletes, ensureDir, removeDir, size and mdtm, FEAT, NOOP,
 * SITE CHMOD, raw commands through sendIgnoringError, directory uploads and
 * downloads, downloads and uploads the client aborts by closing, two tasks
 * at once (basic-ftp closes the client), idle pauses past the server's
 * timeout, the server closing under the client; ended by QUIT or by
 * dropping the connection.  About one case in six also (or only) has a
 * raw-socket client sending commands by hand: before and after login,
 * unknown and malformed commands, active transfers (PORT/EPRT to a listener
 * of the generator), passive transfers and ABOR, a data connection from
 * another address (127.0.0.2), pipelined commands, garbage, long lines.
 * At the end the case closes its clients and the server (`server.close()`
 * logs too) inside the case; records reaching a logger of an earlier case
 * are dropped and counted in the summary line, and verbose is switched off
 * on a case's clients when it ends.
 *
 * Each case's server root is also the process's working directory while
 * the case runs: ftp-srv's own file system takes its root from it when no
 * login listener names one (anonymous logins without a listener).  The
 * active connector of ftp-srv 4.6.3 can throw from its connect callback
 * when the transfer has already ended (it would stop a real server): such
 * throws are caught at process level and counted in the summary line.
 *
 * Messages hold ports, connection addresses, temp paths (ENOENT texts),
 * listing lines with dates, and file sizes.  Fixtures (certificate, each
 * case's server root, local files) live in a temp dir on /dev/shm when
 * writable, removed at exit.  PMRAG_VERBOSE=1 prints one line per case
 * (its steps) to stderr; PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const net = require('net');
const tls = require('tls');
const path = require('path');
const util = require('util');
const { Readable, Writable } = require('stream');
const { execFileSync } = require('child_process');
const cap = require('./_capture');

const args = cap.parseArgs(process.argv, 'ftpsrv', 500);
const NM = path.join(args.deps, 'node_modules');
const PKGS = ['ftp-srv', 'basic-ftp'];
const INDEXED = 'ftp-pkgs';
const VERBOSE = !!process.env.PMRAG_VERBOSE;
const ONLY = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
const CASE_LIMIT_MS = 12000;

for (const p of PKGS) {
  if (!fs.existsSync(path.join(NM, p, 'package.json'))) {
    process.stderr.write(`missing ${path.join(NM, p)}: run npm ci in ${args.deps}\n`);
    process.exit(1);
  }
}

// The indexed copies: every .js file of both packages, same relative paths.
function prepareRepo() {
  const indexDir = path.join(args.deps, INDEXED);
  for (const p of PKGS) {
    const src = fs.realpathSync(path.join(NM, p));
    const dst = path.join(indexDir, p);
    fs.rmSync(dst, { recursive: true, force: true });
    const copy = (s, d) => {
      for (const ent of fs.readdirSync(s, { withFileTypes: true })) {
        if (ent.isDirectory()) {
          if (ent.name !== 'node_modules') copy(path.join(s, ent.name), path.join(d, ent.name));
        } else if (ent.isFile() && ent.name.endsWith('.js')) {
          fs.mkdirSync(d, { recursive: true });
          fs.copyFileSync(path.join(s, ent.name), path.join(d, ent.name));
        }
      }
    };
    copy(src, dst);
  }
  return fs.realpathSync(indexDir);
}

const INDEX_DIR = prepareRepo();
if (args.repo) {
  process.stdout.write(INDEX_DIR + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_ftpsrv.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const srcDirs = PKGS.map((p) => [fs.realpathSync(path.join(NM, p)) + path.sep, path.join(INDEX_DIR, p) + path.sep]);
const log = new cap.EventLog(args.out, {
  indexDir: INDEX_DIR,
  // FTPContext.log(message): `if (this.verbose) console.log(message)`
  wrappers: [[`${INDEXED}/basic-ftp/dist/FtpContext.js`, 'log']],
  mapLocation: (file, line, column) => {
    for (const [src, dst] of srcDirs) if (file.startsWith(src)) return { file: dst + file.slice(src.length), line, column };
    return null;
  },
});

let foreign = 0; // bunyan records of a logger of an earlier case
cap.hookBunyan(log, args.deps, {
  accept: (rec) => {
    if (rec.case === log.caseId) return true;
    foreign++;
    return false;
  },
  loggerName: (rec) => [rec.name, rec.directive, rec.subverb].filter(Boolean).join('/'),
});

let stray = 0; // console output whose call site is not in the indexed dir
let late = 0; // console output while no case is open
const CONSOLE_LEVEL = { log: 'INFO', info: 'INFO', warn: 'WARN', error: 'ERROR' };
for (const m of Object.keys(CONSOLE_LEVEL)) {
  // the generator itself never prints through console
  const f = function capturedConsole(...a) {
    if (log.caseId === null || log.caseId === undefined) { late++; return; }
    let msg;
    try { msg = util.format(...a); } catch (e) { msg = String(a[0]); }
    if (!log.record(msg, CONSOLE_LEVEL[m], 'console', f)) {
      stray++;
      if (VERBOSE) process.stderr.write(`stray ${m}: ${msg.slice(0, 200)}\n`);
    }
  };
  console[m] = f;
}

const FtpSrv = require(path.join(NM, 'ftp-srv'));
const { FileSystem, ftpErrors } = FtpSrv;
const ftp = require(path.join(NM, 'basic-ftp'));
const bunyan = require(require.resolve('bunyan', { paths: [path.join(NM, 'ftp-srv')] }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noop = () => {};
const TIMEOUT = Symbol('timeout');
function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((r) => { t = setTimeout(() => r(TIMEOUT), ms); })]).finally(() => clearTimeout(t));
}

let escaped = 0;
process.on('uncaughtException', (e) => {
  escaped++;
  if (VERBOSE) process.stderr.write(`uncaught: ${(e && e.stack) || e}\n`);
});
process.on('unhandledRejection', noop);

// ---------------------------------------------------------------------------
// Fixtures: a temp dir (on /dev/shm when writable) and a throw-away certificate.
const BASE = fs.mkdtempSync(path.join(cap.tempBase(), 'pmrag-ftpsrv-'));
const cleanup = () => { try { fs.rmSync(BASE, { recursive: true, force: true }); } catch (e) { /* gone */ } };
process.on('exit', cleanup);
let KEY = null;
let CERT = null;
try {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(BASE, 'key.pem'),
    '-out', path.join(BASE, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  KEY = fs.readFileSync(path.join(BASE, 'key.pem'));
  CERT = fs.readFileSync(path.join(BASE, 'cert.pem'));
} catch (e) {
  process.stderr.write('gen_ftpsrv: no openssl, FTPS cases run as plain FTP\n');
}

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet',
  'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango'];

function bytes(R, n) {
  const b = Buffer.alloc(n);
  let x = R.int(1, 0x7ffffff0);
  for (let i = 0; i < n; i++) { x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff; b[i] = (x >>> 16) & 255; }
  return b;
}
function text(R, lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(Array.from({ length: R.int(2, 9) }, () => R.pick(WORDS)).join(' '));
  return out.join('\n') + '\n';
}

const BIG = Buffer.alloc(3 << 20, 0x5a); // the file aborted transfers read

// A server root for the case: a few files and directories, some old.
function makeRoot(R, ck) {
  const root = path.join(BASE, ck);
  for (const d of ['pub', 'docs/sub', 'empty', 'vault']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.writeFileSync(path.join(root, 'readme.txt'), text(R, R.int(1, 6)));
  fs.writeFileSync(path.join(root, 'pub/notes.txt'), text(R, R.int(1, 30)));
  fs.writeFileSync(path.join(root, 'pub/data.bin'), bytes(R, R.int(0, 120000)));
  fs.writeFileSync(path.join(root, 'docs/a.txt'), text(R, R.int(1, 10)));
  fs.writeFileSync(path.join(root, 'docs/b.txt'), text(R, R.int(1, 10)));
  fs.writeFileSync(path.join(root, 'docs/sub/c.txt'), text(R, 2));
  fs.writeFileSync(path.join(root, 'vault/secret.txt'), 'top secret\n');
  fs.writeFileSync(path.join(root, 'big.bin'), BIG);
  if (R.chance(0.3)) fs.writeFileSync(path.join(root, 'pub/with space.txt'), text(R, 1));
  if (R.chance(0.2)) fs.writeFileSync(path.join(root, 'pub/\u00fcber-\u00e9t\u00e9.txt'), text(R, 1));
  const old = new Date(Date.UTC(2019, R.int(0, 11), R.int(1, 28), 12, 0, 0));
  fs.utimesSync(path.join(root, 'docs/a.txt'), old, old);
  fs.utimesSync(path.join(root, 'docs/sub'), old, old);
  return root;
}

// ---------------------------------------------------------------------------
// The application's file systems (subclasses of ftp-srv's own).
class ReadOnlyFS extends FileSystem {
  write() { throw new ftpErrors.FileSystemError('Permission denied: read-only file system', 550); }
  delete(p) { return Promise.reject(new Error(`Permission denied: cannot delete ${p}`)); }
  mkdir(p) { return Promise.reject(new Error(`Permission denied: cannot create ${p}`)); }
  rename(from) { return Promise.reject(new Error(`Permission denied: cannot rename ${from}`)); }
  chmod() { return Promise.reject(new Error('Operation not permitted')); }
}

class FlakyFS extends FileSystem {
  constructor(connection, opts) {
    super(connection, opts);
    this.quota = opts.quota;
    this.evil = opts.evil;
    this.n = 0;
  }

  currentDirectory() {
    if (this.cwd === '/empty') throw new Error('ESTALE: stale file handle');
    return super.currentDirectory();
  }

  chdir(p = '.') {
    if (/vault/.test(p) || /vault/.test(this.cwd)) return Promise.reject(new Error('Permission denied'));
    return super.chdir(p);
  }

  list(p = '.') {
    if (/vault/.test(p)) {
      const e = new Error(`EACCES: permission denied, scandir '${p}'`);
      e.code = 'EACCES';
      return Promise.reject(e);
    }
    if (!this.evil) return super.list(p);
    // a listing naming a file outside the directory
    return super.list(p).then((files) => {
      const extra = fs.statSync(path.join(this.root, 'readme.txt'));
      extra.name = '../outside.txt';
      return files.concat([extra]);
    });
  }

  read(name, opts) {
    if (/\.bin$/.test(name)) {
      // the disk fails after the first chunk
      return this.get(name).then(() => {
        let sent = false;
        const stream = new Readable({
          read() {
            if (!sent) { sent = true; this.push(Buffer.alloc(32768, 1)); } else {
              setTimeout(() => this.destroy(new Error(`EIO: i/o error, read '${name}'`)), 5);
            }
          },
        });
        return { stream, clientPath: name };
      });
    }
    return super.read(name, opts);
  }

  write(name, opts) {
    let written = 0;
    const quota = this.quota;
    const stream = new Writable({
      write(chunk, enc, cb) {
        written += chunk.length;
        if (written > quota) cb(new Error(`Quota exceeded (${quota} bytes)`)); else cb();
      },
    });
    void opts;
    return { stream, clientPath: name };
  }

  getUniqueName() {
    this.n++;
    return `unique-${this.n}.dat`;
  }
}

// ---------------------------------------------------------------------------
const USERS = {
  alice: { pass: 'wonderland', fs: 'plain' },
  bob: { pass: 'builder', fs: 'readonly' },
  carol: { pass: 'c4r0l', fs: 'flaky' },
  dave: { pass: 'd4ve', fs: 'plain', cwd: '/pub', blacklist: ['DELE', 'RMD', 'RNFR'] },
  erin: { pass: 'erin!', fs: 'plain', sub: 'docs' },
};
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGQUIT'];
const SINK = { write() {} };

function serverOptions(R, st) {
  const level = R.pick(['trace', 'trace', 'trace', 'trace', 'trace', 'trace', 'trace', 'debug', 'debug', 'info']);
  const logger = bunyan.createLogger({ name: 'ftp-srv', case: log.caseId, level,
    streams: [{ type: 'raw', level, stream: SINK }] });
  st.tls = !!KEY && R.chance(0.3);
  st.implicit = st.tls && R.chance(0.3);
  const base = 30000 + R.int(0, 1900);
  const width = R.pick([0, 1, 2, 5, 10, 20]);
  st.pasv = [base, base + width];
  const o = {
    log: logger,
    url: `${st.implicit ? 'ftps' : 'ftp'}://127.0.0.1:${st.port}`,
    pasv_min: base,
    pasv_max: base + width,
  };
  const pu = R.rand();
  if (pu < 0.72) o.pasv_url = '127.0.0.1';
  else if (pu < 0.82) o.pasv_url = (ip) => Promise.resolve(ip === '127.0.0.1' ? '127.0.0.1' : '0.0.0.0');
  else if (pu < 0.87) o.pasv_url = () => { throw new Error('no public address configured'); };
  else o.pasv_url = null;
  const an = R.rand();
  o.anonymous = an < 0.2 ? true : an < 0.26 ? 'guest' : false;
  st.anonymous = o.anonymous;
  if (R.chance(0.3)) o.greeting = R.pick(['Welcome to the case server', ['Welcome', 'Authorized users only'], 'Line one\nLine two\nLine three']);
  const ff = R.rand();
  o.file_format = ff < 0.7 ? 'ls' : ff < 0.85 ? 'ep' : ff < 0.95 ? (st2) => `${st2.isDirectory() ? 'dir' : 'file'} ${st2.size} ${st2.name}` : 'bogus';
  if (R.chance(0.08)) o.blacklist = R.sample(['EPSV', 'DELE', 'RMD', 'MKD', 'SITE', 'STOU', 'APPE', 'MDTM'], R.int(1, 2));
  else if (R.chance(0.04)) {
    o.whitelist = ['USER', 'PASS', 'PWD', 'CWD', 'LIST', 'EPSV', 'PASV', 'RETR', 'TYPE', 'FEAT', 'QUIT', 'SIZE', 'AUTH', 'PBSZ', 'PROT']
      .concat(R.chance(0.5) ? ['OPTS', 'STRU'] : []);
  }
  if (st.tls) o.tls = { key: KEY, cert: CERT };
  if (R.chance(0.1)) { o.timeout = R.int(250, 600); st.idleTimeout = o.timeout; }
  return o;
}

function loginHandler(R, st) {
  const delay = R.chance(0.3) ? R.int(5, 40) : 0;
  return ({ connection, username, password }, resolve, reject) => {
    void connection;
    if (username === 'crash') {
      // an application bug: the listener throws
      const cfg = st.usersConfig[username];
      return resolve({ root: cfg.root });
    }
    const act = () => {
      if (username === 'anonymous' || username === st.anonymous) {
        if (st.anonRefuse) return reject(new Error('Anonymous access is disabled'));
        return resolve({ root: path.join(st.root, 'pub'), fs: st.anonReadOnly ? new ReadOnlyFS(connection, { root: path.join(st.root, 'pub') }) : undefined });
      }
      const u = USERS[username];
      if (!u) return reject(new ftpErrors.GeneralError(`Unknown user ${username}`, 530));
      if (u.pass !== password) return reject(new Error('Invalid username or password'));
      const root = u.sub ? path.join(st.root, u.sub) : st.root;
      const opts = { root, cwd: u.cwd };
      const out = { root, cwd: u.cwd, blacklist: u.blacklist };
      if (u.fs === 'readonly') out.fs = new ReadOnlyFS(connection, opts);
      else if (u.fs === 'flaky') out.fs = new FlakyFS(connection, { root, cwd: u.cwd, quota: st.quota, evil: st.evil });
      return resolve(out);
    };
    if (delay) setTimeout(act, delay); else act();
    return undefined;
  };
}

// ---------------------------------------------------------------------------
// Steps: each resolves to its value, an Error, or TIMEOUT.
const errs = new Map();
async function step(st, name, fn, ms = 3000) {
  let r;
  try {
    r = await withTimeout(Promise.resolve().then(fn).catch((e) => (e instanceof Error ? e : new Error(String(e)))), ms);
  } catch (e) { r = e; }
  if (r === TIMEOUT) st.trace.push(`${name}:timeout`);
  else if (r instanceof Error) {
    st.trace.push(`${name}:ERR`);
    const k = `${name}: ${String(r.message).split('\n')[0].replace(/\d+/g, 'N').slice(0, 90)}`;
    errs.set(k, (errs.get(k) || 0) + 1);
  } else st.trace.push(name);
  return r;
}

const sinkStream = () => new Writable({ write(c, e, cb) { cb(); } });

function slowSource(chunks, every) {
  let n = 0;
  return new Readable({
    read() {
      if (n >= chunks) { this.push(null); return; }
      n++;
      setTimeout(() => this.push(Buffer.alloc(16384, 0x41)), every);
    },
  });
}

function credentials(R, st) {
  const k = R.rand();
  if (st.anonymous && k < 0.25) return { user: st.anonymous === true ? 'anonymous' : st.anonymous, password: 'guest@example.org' };
  if (k < 0.08) return { user: 'mallory', password: 'letmein' };
  if (k < 0.15) return { user: R.pick(['alice', 'bob', 'carol']), password: 'wrong' };
  if (k < 0.17) return { user: 'crash', password: 'x' };
  if (k < 0.19) return { user: 'anonymous', password: 'guest' };
  const user = R.pick(['alice', 'alice', 'alice', 'bob', 'carol', 'dave', 'erin']);
  return { user, password: USERS[user].pass };
}

const FILES = ['/readme.txt', '/pub/notes.txt', '/pub/data.bin', '/docs/a.txt', '/docs/b.txt', 'readme.txt', 'notes.txt', 'a.txt'];
const MISSING = ['/nope.txt', '/pub/missing.bin', 'ghost.txt', '/docs/sub/none.txt'];
const DIRS = ['/pub', '/docs', 'docs', '/docs/sub', 'sub', '..', '/', '/empty'];
const RAW_VIA_CLIENT = ['STAT', 'STAT /pub', 'STAT /readme.txt', 'STAT /nope', 'SYST', 'HELP', 'HELP STOR', 'HELP NOPE',
  'MODE S', 'MODE Z', 'STRU R', 'ALLO 512', 'TYPE A', 'TYPE Q', 'OPTS UTF8 OFF', 'OPTS FOO', 'XPWD', 'XCWD /docs', 'XCUP',
  'NLST', 'RETR /readme.txt', 'ABOR', 'REST 10', 'REST x', 'MDTM /', 'FOO BAR', 'SITE', 'SITE ZAP', 'PORT 1,2,3',
  'PORT 127,0,0,2,4,1', 'EPRT |3|x|1|', 'RNTO /x.txt', 'USER alice', 'PASS again', 'AUTH SSL', 'PBSZ 0', 'PROT C', 'PROT P'];

async function clientOps(R, st, client, n, who) {
  let made = 0;
  for (let k = 0; k < n; k++) {
    if (client.closed) break;
    const op = R.pick(['list', 'list', 'list', 'cd', 'cd', 'cdMissing', 'cdFile', 'cdup', 'pwd', 'upload', 'upload', 'append',
      'download', 'download', 'downloadRest', 'downloadMissing', 'rename', 'renameMissing', 'remove', 'removeMissing',
      'ensureDir', 'removeDir', 'removeEmptyDir', 'size', 'sizeMissing', 'lastMod', 'features', 'noop', 'chmod',
      'raw', 'raw', 'raw', 'legacy', 'uploadDir', 'downloadDir', 'abortDownload', 'abortUpload', 'misuse', 'idle', 'serverClose']);
    const f = R.pick(FILES);
    switch (op) {
      case 'list': await step(st, op, () => client.list(R.pick(['', '', '', '/pub', 'docs', '/missing', '/readme.txt', '/vault']))); break;
      case 'cd': await step(st, op, () => client.cd(R.pick(DIRS))); break;
      case 'cdMissing': await step(st, op, () => client.cd(R.pick(['/nowhere', 'missing/dir', '/vault']))); break;
      case 'cdFile': await step(st, op, () => client.cd('/readme.txt')); break;
      case 'cdup': await step(st, op, () => client.cdup()); break;
      case 'pwd': await step(st, op, () => client.pwd()); break;
      case 'upload': {
        const name = R.pick([`up-${who}-${k}.bin`, `/pub/up-${k}.txt`, 'docs/new.txt', '/nodir/x.txt', '/readme.txt']);
        const data = bytes(R, R.pick([0, R.int(1, 2000), R.int(2000, 60000)]));
        await step(st, op, () => client.uploadFrom(Readable.from([data]), name));
        break;
      }
      case 'append': await step(st, op, () => client.appendFrom(Readable.from([Buffer.from(text(R, 2))]), R.pick(['/readme.txt', 'log.txt']))); break;
      case 'download': await step(st, op, () => client.downloadTo(sinkStream(), f)); break;
      case 'downloadRest': await step(st, op, () => client.downloadTo(sinkStream(), R.pick(['/pub/data.bin', '/readme.txt']), R.int(1, 400))); break;
      case 'downloadMissing': await step(st, op, () => client.downloadTo(sinkStream(), R.pick(MISSING.concat(['/docs'])))); break;
      case 'rename': await step(st, op, () => client.rename(f, `${f.replace(/\.[a-z]+$/, '')}-${k}.moved`)); break;
      case 'renameMissing': await step(st, op, () => client.rename(R.pick(MISSING), '/whatever.txt')); break;
      case 'remove': await step(st, op, () => client.remove(R.pick(FILES.concat(['/empty'])))); break;
      case 'removeMissing': await step(st, op, () => client.remove(R.pick(MISSING), R.chance(0.3))); break;
      case 'ensureDir': made++; await step(st, op, () => client.ensureDir(`/made-${who}-${made}/${R.pick(WORDS)}`)); break;
      case 'removeDir': await step(st, op, () => client.removeDir(R.pick(['/docs', made ? `/made-${who}-${made}` : '/pub', '/nope']))); break;
      case 'removeEmptyDir': await step(st, op, () => client.removeEmptyDir(R.pick(['/empty', '/docs']))); break;
      case 'size': await step(st, op, () => client.size(f)); break;
      case 'sizeMissing': await step(st, op, () => client.size(R.pick(MISSING))); break;
      case 'lastMod': await step(st, op, () => client.lastMod(R.pick(FILES.concat(MISSING)))); break;
      case 'features': await step(st, op, () => client.features()); break;
      case 'noop': await step(st, op, () => client.send('NOOP')); break;
      case 'chmod': await step(st, op, () => client.sendIgnoringError(`SITE CHMOD ${R.pick(['644', '600', '9z'])} ${R.pick(FILES.concat(MISSING))}`)); break;
      case 'raw': await step(st, op, () => client.sendIgnoringError(R.pick(RAW_VIA_CLIENT)), 1500); break;
      case 'legacy': { // an older application: deprecated calls
        const which = R.pick(['upload', 'append', 'download', 'uploadDir', 'downloadDir', 'sendFlag']);
        if (which === 'upload') await step(st, op, () => client.upload(Readable.from([Buffer.from(text(R, 3))]), `/legacy-${who}-${k}.txt`));
        else if (which === 'append') await step(st, op, () => client.append(Readable.from([Buffer.from(text(R, 1))]), '/readme.txt'));
        else if (which === 'download') await step(st, op, () => client.download(sinkStream(), R.pick(FILES)));
        else if (which === 'sendFlag') await step(st, op, () => client.send(R.pick(['SITE ZAP', 'NOOP', 'MODE B']), true));
        else {
          const local = path.join(BASE, `${st.ck}-legacy-${who}-${k}`);
          fs.mkdirSync(local, { recursive: true });
          fs.writeFileSync(path.join(local, 'old.txt'), text(R, 2));
          if (which === 'uploadDir') await step(st, op, () => client.uploadDir(local, `/legacy-tree-${who}-${k}`));
          else await step(st, op, () => client.downloadDir(local));
        }
        break;
      }
      case 'uploadDir': {
        const local = path.join(BASE, `${st.ck}-local-${who}-${k}`);
        fs.mkdirSync(path.join(local, 'inner'), { recursive: true });
        for (let j = R.int(1, 3); j > 0; j--) fs.writeFileSync(path.join(local, `f${j}.txt`), text(R, 2));
        fs.writeFileSync(path.join(local, 'inner', 'deep.txt'), text(R, 1));
        await step(st, op, () => client.uploadFromDir(local, R.chance(0.7) ? `/tree-${who}-${k}` : undefined));
        break;
      }
      case 'downloadDir': {
        const local = path.join(BASE, `${st.ck}-dl-${who}-${k}`);
        fs.mkdirSync(local, { recursive: true });
        await step(st, op, () => client.downloadToDir(local, R.pick(['/docs', '/pub', '/nope'])));
        break;
      }
      case 'abortDownload': {
        // the application gives up half-way: it closes the client
        const at = R.int(1, 4) * 65536;
        client.trackProgress((info) => { if (info.bytes >= at) client.close(); });
        await step(st, op, () => client.downloadTo(sinkStream(), '/big.bin'));
        client.trackProgress();
        break;
      }
      case 'abortUpload': {
        const src = slowSource(20, 8);
        setTimeout(() => client.close(), R.int(20, 80));
        await step(st, op, () => client.uploadFrom(src, `/slow-${who}-${k}.bin`));
        break;
      }
      case 'misuse': {
        // two tasks at once: basic-ftp closes the client with an error
        const a = client.list().catch((e) => e);
        await step(st, op, () => client.pwd());
        await a;
        break;
      }
      case 'idle': await sleep(st.idleTimeout ? R.int(st.idleTimeout - 100, st.idleTimeout + 300) : R.int(20, 150)); st.trace.push('idle'); break;
      case 'serverClose':
        if (R.chance(0.5) && st.server && !st.serverClosed) {
          st.serverClosed = true;
          await step(st, op, () => st.server.close(), 2500);
        }
        break;
      default: break;
    }
    if (client.closed && R.chance(0.3) && !st.serverClosed) {
      // reconnect after the client was closed (basic-ftp allows access again)
      await step(st, 'reaccess', () => client.access(st.lastAccess), 4000);
    }
  }
}

async function clientSession(R, st, who) {
  const client = new ftp.Client(R.pick([1500, 3000, 5000]), { allowSeparateTransferHost: R.chance(0.3) });
  client.ftp.verbose = R.chance(0.93);
  st.clients.push(client);
  if (R.chance(0.12)) client.prepareTransfer = R.pick([ftp.enterPassiveModeIPv4, ftp.enterPassiveModeIPv6]);
  const cred = credentials(R, st);
  let secure = false;
  if (st.implicit) secure = R.chance(0.9) ? 'implicit' : false;
  else if (st.tls) secure = R.chance(0.7);
  else if (R.chance(0.05)) secure = true;
  const opts = { host: '127.0.0.1', port: st.port, user: cred.user, password: cred.password, secure,
    secureOptions: { rejectUnauthorized: false } };
  st.lastAccess = opts;
  let r = await step(st, `access:${cred.user}`, () => client.access(opts), 4000);
  if (r instanceof Error || r === TIMEOUT) {
    if (!R.chance(0.35)) return client;
    // try again with the right password
    const user = R.pick(['alice', 'dave']);
    st.lastAccess = Object.assign({}, opts, { user, password: USERS[user].pass });
    r = await step(st, 'access:retry', () => client.access(st.lastAccess), 4000);
    if (r instanceof Error || r === TIMEOUT) return client;
  }
  await clientOps(R, st, client, R.int(1, 9), who);
  if (!client.closed) {
    if (st.idleTimeout && R.chance(0.5)) { await sleep(st.idleTimeout + 150); st.trace.push('idle'); }
    if (R.chance(0.58)) await step(st, 'quit', () => client.send('QUIT'), 1500);
    else st.trace.push('drop');
    client.close();
  }
  return client;
}

// ---------------------------------------------------------------------------
// The raw-socket client: commands typed by hand.
function rawConnect(st, opts = {}) {
  return new Promise((resolve) => {
    const o = { host: '127.0.0.1', port: st.port, localAddress: opts.localAddress };
    const sock = st.implicit ? tls.connect(Object.assign(o, { rejectUnauthorized: false })) : net.connect(o);
    const rc = { sock, buf: '', closed: false };
    st.raws.push(rc);
    sock.setEncoding('latin1');
    sock.on('data', (d) => { rc.buf += d; });
    sock.on('error', noop);
    sock.on('close', () => { rc.closed = true; });
    const t = setTimeout(() => resolve(null), 1500);
    sock.once(st.implicit ? 'secureConnect' : 'connect', () => { clearTimeout(t); resolve(rc); });
  });
}

async function until(pred, ms) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await sleep(4);
  return pred();
}

const FINAL = /(^|\n)\d{3} [^\n]*\r?\n/;
// Sends line (null: nothing) and waits for one final reply line.
async function rawCmd(rc, line, ms = 400) {
  rc.buf = '';
  if (line !== null && !rc.closed) rc.sock.write(line + '\r\n');
  await until(() => FINAL.test(rc.buf) || rc.closed, ms);
  return rc.buf;
}

function dataListener(st, mode, payload) {
  return new Promise((resolve) => {
    const srv = net.createServer((s) => {
      s.on('error', noop);
      s.on('data', noop);
      if (mode === 'STOR') s.end(payload);
    });
    st.dataServers.push(srv);
    srv.on('error', noop);
    srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
  });
}

function dataConnect(host, port, mode, payload, localAddress) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, localAddress });
    s.on('error', () => resolve(null));
    s.on('data', noop);
    s.on('connect', () => {
      if (mode === 'STOR') s.end(payload);
      resolve(s);
    });
  });
}

async function rawTransfer(R, st, rc, kind, cmd) {
  const verb = cmd.split(' ')[0];
  const payload = Buffer.from(text(R, R.int(1, 5)));
  if (kind === 'active') {
    const port = await dataListener(st, verb, payload);
    await rawCmd(rc, R.chance(0.5) ? `PORT 127,0,0,1,${port >> 8},${port & 255}` : `EPRT |1|127.0.0.1|${port}|`);
  } else {
    const epsv = R.chance(0.5);
    const reply = await rawCmd(rc, epsv ? 'EPSV' : 'PASV');
    let port = null;
    const m = epsv ? reply.match(/\|\|\|(\d+)\|/) : reply.match(/\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/);
    if (m) port = epsv ? Number(m[1]) : Number(m[5]) * 256 + Number(m[6]);
    if (!port) return;
    if (kind === 'noconnect') { await rawCmd(rc, cmd, 6000); return; }
    const s = await dataConnect('127.0.0.1', port, verb, payload, kind === 'mismatch' ? '127.0.0.2' : undefined);
    if (s) st.dataSockets.push(s);
    if (kind === 'mismatch') { await rawCmd(rc, null, 300); await rawCmd(rc, cmd, 300); return; }
    if (kind === 'abor') { await sleep(10); await rawCmd(rc, 'ABOR', 400); await rawCmd(rc, null, 300); return; }
  }
  // 150 first, then 226 (or an error) once the data has moved
  const first = await rawCmd(rc, cmd, 1500);
  if (/^150/m.test(first)) await rawCmd(rc, null, 1500);
}

const PRE = ['SYST', 'FEAT', 'HELP', 'HELP RETR', 'HELP BOGUS', 'NOOP', 'PWD', 'LIST', 'CWD /pub', 'PASS early', 'USER',
  'FOO', 'XYZZY 1 2', 'AUTH SSL', 'PBSZ 0', 'PROT P', 'OPTS UTF8 ON', 'TYPE I', 'MODE S', 'STRU F', 'STAT', 'ABOR',
  'REST 5', 'ALLO 1', 'MKD /x'];
const POST = ['PWD', 'XPWD', 'CWD /pub', 'CWD /missing', 'CDUP', 'XCUP', 'MDTM /readme.txt', 'MDTM /nope', 'SIZE /pub/data.bin',
  'SIZE /nope', 'DELE /nope', 'RMD /nope', 'MKD /raw-dir', 'XMKD /raw-dir/sub', 'RMD /empty', 'RNFR /nope', 'RNTO /x',
  'RNFR /readme.txt', 'RNTO /readme-moved.txt', 'SITE CHMOD 600 /readme.txt', 'SITE CHMOD 600 /nope', 'SITE ZAP', 'STAT',
  'STAT /pub', 'STAT /readme.txt', 'STAT /nope', 'PORT 1,2,3', 'PORT 127,0,0,2,4,1', 'EPRT |3|::1|21|', 'EPRT |2|::1|2121|',
  'TYPE L8', 'TYPE E', 'MODE B', 'STRU R', 'REST x', 'REST 100', 'OPTS UTF8 BAD', 'OPTS FOO', 'USER again', 'PASS again',
  'PBSZ 0', 'PROT C', 'ABOR', 'NLST', 'LIST', 'RETR /readme.txt', 'STOR /x.txt', 'APPE /x.txt', 'STOU', 'ALLO 1', 'NOOP',
  'HELP SITE', 'SYST', 'FEAT'];
const TRANSFERS = [['active', 'LIST'], ['active', 'NLST /docs'], ['active', 'RETR /readme.txt'], ['active', 'STOR /raw-up.txt'],
  ['active', 'RETR /nope'], ['passive', 'LIST /pub'], ['passive', 'RETR /pub/data.bin'], ['passive', 'STOR /raw-p.txt'],
  ['passive', 'STOU'], ['passive', 'APPE /readme.txt'], ['passive', 'LIST -a'], ['abor', 'RETR /big.bin'], ['mismatch', 'LIST'],
  ['passive', 'RETR /big.bin']];

async function rawSession(R, st) {
  const rc = await rawConnect(st);
  if (!rc) { st.trace.push('raw:noconnect'); return; }
  await rawCmd(rc, null, 600); // greeting
  const plain = !st.implicit;
  for (let k = R.int(0, 3); k > 0; k--) await rawCmd(rc, R.pick(PRE));
  const user = st.anonymous && R.chance(0.3) ? (st.anonymous === true ? 'anonymous' : st.anonymous) : R.pick(['alice', 'alice', 'bob', 'carol', 'nobody']);
  const r = await rawCmd(rc, `USER ${user}`);
  if (/^331/m.test(r)) await rawCmd(rc, `PASS ${USERS[user] && R.chance(0.85) ? USERS[user].pass : 'bad'}`, 600);
  const n = R.int(2, 10);
  for (let k = 0; k < n && !rc.closed; k++) {
    const x = R.rand();
    if (x < 0.55) await rawCmd(rc, R.pick(POST));
    else if (x < 0.8 && plain) {
      const [kind, cmd] = R.chance(0.06) ? ['noconnect', R.pick(['LIST', 'RETR /readme.txt', 'STOR /never.txt'])] : R.pick(TRANSFERS);
      st.trace.push(`raw:${kind}:${cmd}`);
      await rawTransfer(R, st, rc, kind, cmd);
    } else if (x < 0.86) await rawCmd(rc, 'NOOP\r\nSYST\r\nPWD', 300).then(() => sleep(20)); // pipelined
    else if (x < 0.9) await rawCmd(rc, bytes(R, R.int(3, 40)).toString('latin1').replace(/[\r\n]/g, ' '));
    else if (x < 0.93) await rawCmd(rc, `CWD /${'x'.repeat(R.int(300, 3000))}`);
    else if (x < 0.96) await rawCmd(rc, '');
    else await rawCmd(rc, R.pick(['OPTS', 'OPTS UTF8', 'SITE CHMOD']), 250); // handlers that throw: no reply
  }
  const end = R.rand();
  if (end < 0.6) await rawCmd(rc, 'QUIT');
  else if (end < 0.75) { rc.sock.write('NOO'); await sleep(10); rc.sock.end(); }
  else if (end < 0.88) rc.sock.resetAndDestroy(); // the server sees ECONNRESET
  else rc.sock.destroy();
  await sleep(10);
}

// ---------------------------------------------------------------------------
async function serverCase(R, st) {
  st.port = await cap.freePort();
  st.root = makeRoot(R, st.ck);
  // ftp-srv's own file system defaults its root to the working directory
  // (an anonymous login without a login listener): the case's root
  process.chdir(st.root);
  st.quota = R.pick([100, 4096, 1 << 20]);
  st.anonReadOnly = R.chance(0.5);
  st.anonRefuse = R.chance(0.2);
  st.evil = R.chance(0.3);
  st.usersConfig = {};
  const o = serverOptions(R, st);
  const before = {};
  for (const s of SIGNALS) before[s] = process.listeners(s);
  const server = new FtpSrv(o);
  // ftp-srv adds SIGTERM/SIGINT/SIGQUIT handlers that quit the process: not ours
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before[s].includes(l)) process.removeListener(s, l);
  st.server = server;
  if (R.chance(0.93)) server.on('login', loginHandler(R, st));
  server.on('client-error', () => { st.clientErrors++; });
  server.on('server-error', noop);
  if (R.chance(0.05)) {
    // the passive port range is taken by another program
    for (let p = st.pasv[0]; p <= st.pasv[1]; p++) {
      const b = net.createServer();
      b.on('error', noop);
      b.listen(p, '127.0.0.1');
      st.blockers.push(b);
    }
    st.trace.push('blocked');
  }
  if (R.chance(0.03)) {
    // the server's port is taken: listen fails
    const b = net.createServer();
    b.on('error', noop);
    await new Promise((r) => b.listen(st.port, '127.0.0.1', r));
    st.blockers.push(b);
    st.trace.push('portTaken');
  }
  const lr = await step(st, 'listen', () => server.listen(), 2000);
  if (lr instanceof Error || lr === TIMEOUT) return;
  const k = R.rand();
  const kind = k < 0.78 ? 'client' : k < 0.9 ? 'raw' : k < 0.95 ? 'both' : 'two';
  st.trace.push(kind);
  if (kind === 'client' || kind === 'both') await clientSession(R, st, 'a');
  if (kind === 'raw' || kind === 'both') await rawSession(R, st);
  if (kind === 'two') {
    const R2 = cap.rngTools(cap.seededRandom(`${args.seed}-${st.id}-b`));
    await Promise.all([clientSession(R, st, 'a'), sleep(R.int(0, 30)).then(() => clientSession(R2, st, 'b'))]);
  }
}

async function teardown(st) {
  for (const c of st.clients) { try { c.close(); } catch (e) { /* closed */ } }
  for (const rc of st.raws) rc.sock.destroy();
  for (const s of st.dataSockets) s.destroy();
  await sleep(10);
  if (st.server && !st.serverClosed) {
    st.serverClosed = true;
    await withTimeout(Promise.resolve(st.server.close()).catch(noop), 2000);
  }
  for (const s of st.dataServers.concat(st.blockers)) s.close();
  await sleep(10);
  for (const c of st.clients) c.ftp.verbose = false;
}

async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const st = { id: i, ck, trace: [], clients: [], raws: [], dataServers: [], dataSockets: [], blockers: [], clientErrors: 0 };
  const t0 = Date.now();
  log.caseId = ck;
  try {
    const r = await Promise.race([serverCase(R, st), sleep(CASE_LIMIT_MS).then(() => TIMEOUT)]);
    if (r === TIMEOUT) st.trace.push('CASE-TIMEOUT');
  } catch (e) {
    st.trace.push(`THROW ${e && e.message}`);
    if (VERBOSE) process.stderr.write(`${ck}: ${e && e.stack}\n`);
  }
  await teardown(st);
  process.chdir(BASE);
  const n = log._rows.length;
  log.endCase();
  try { fs.rmSync(path.join(BASE, ck), { recursive: true, force: true }); } catch (e) { /* gone */ }
  for (const ent of fs.readdirSync(BASE)) if (ent.startsWith(`${ck}-`)) fs.rmSync(path.join(BASE, ent), { recursive: true, force: true });
  if (VERBOSE) process.stderr.write(`${ck} ${Date.now() - t0}ms ${n} events: ${st.trace.join(' ')}\n`);
}

async function main() {
  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) if (!ONLY || ONLY.has(i)) await runCase(i);
  await log.finish();
  if (VERBOSE) for (const [k, v] of [...errs.entries()].sort((a, b) => b[1] - a[1])) process.stderr.write(`${String(v).padStart(5)} ${k}\n`);
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s (${foreign} records of earlier cases dropped, ` +
    `${stray} stray and ${late} late console prints` + (escaped ? `, ${escaped} exceptions escaped` : '') + ')\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
