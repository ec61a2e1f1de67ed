#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `ldapjs` 1.0.2 (LDAP client and server in plain CommonJS),
 * which logs through npm `bunyan` 1.8.15, both the client and the server
 * side, all in this process on 127.0.0.1.
 *
 *   node gen_ldapjs.js --repo                    # prints the dir to index
 *   node gen_ldapjs.js --out .deps/logs/ldapjs.csv.gz [--cases 1200] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/ldapjs/lib (truth paths `lib/...`); records
 * emitted elsewhere (asn1, ldap-filter, backoff...) are dropped.
 *
 * Logging: ldapjs takes a bunyan logger as the `log` option of createServer
 * and createClient and logs with bunyan's printf-style calls:
 * `log.trace('%s close; had_err=%j', c.ldap.id, had_err)`,
 * `log.debug('%s: message received: req=%j', ...)`, a fields object first
 * (`log.trace({err: err}, 'error event: %s', new Error().stack)`), an Error
 * left over after the format's arguments and appended by `util.format`
 * (`log.warn('%s unexpected connection error', c.ldap.id, err)`), most behind
 * an `if (log.trace())` enabled test.  The client derives child loggers
 * (`log.child({clazz: 'Client'})`, then `{ldap_id}` per connection); parsed
 * messages log through the logger handed to their parser.  The generator
 * gives each server and client its own bunyan logger (name `ldapjs` as
 * ldapjs' own default loggers have, `component` `server` or `client`, level
 * trace, a raw stream that discards) and hooks bunyan's
 * `Logger.prototype._emit` (`hookBunyan` in _capture.js), so every record is
 * captured as bunyan built it.  Activity = the record's `msg` (bunyan's
 * `util.format` of the arguments after the fields object or Error), without
 * bunyan's JSON envelope.  level = bunyan's level name upper-cased; logger =
 * `name/component`, then `/clazz` when the record has the client's `clazz`
 * field (`ldapjs/server`, `ldapjs/client/Client`).  Emitter: the first stack
 * frame outside bunyan and _capture.js.  ldapjs has no logging wrapper of its
 * own, so no function is declared a wrapper and code.wrapped is always 0.
 *
 * A case is one seeded session with its own PRNG:
 *   - ~75%: an ldapjs server built for the case (plain or, with `openssl`
 *     available, LDAPS with a throw-away self-signed certificate; strictDN on
 *     or off; sometimes an idle-connection timeout; pre-chain middleware, an
 *     access check on writes, post-chain `after` handlers; an in-memory
 *     directory of people, groups and a referral under one of three
 *     suffixes; handlers for bind (users and `cn=root`), search (scopes,
 *     filters, size limits, paged results, persistent search with change
 *     notifications, references), add, modify, del, compare, modifyDN, the
 *     WhoAmI extended operation, StartTLS (a real upgrade done as an ldapjs
 *     1.x application does it, or an answer without upgrade), unbind; some
 *     operations left unmounted), and 1-3 ldapjs clients with random options
 *     (request, connect and idle timeouts, reconnect with backoff, request
 *     queue limits, bind on connect, strictDN, TLS certificate checks), each
 *     running 1-8 operations: binds (good, wrong password, unknown,
 *     anonymous, invalid DN), searches (some with a server-side-sorting
 *     control, now and then one that cannot be encoded), writes, compares,
 *     renames, extended operations, StartTLS, abandons, idle pauses, the
 *     server dropping every connection or closing, then unbind or destroy.
 *     Entries named `cn=throw`, `cn=slow`, `cn=hang`, `cn=drop`, `cn=busy`,
 *     `cn=fail` make the handlers throw, answer after 120 ms, never answer,
 *     drop the connection, or fail with BusyError or a plain Error; an
 *     approximate-match filter makes the search handler throw (ldap-filter
 *     has no `~=`).  Sometimes a raw TCP client also talks to the server:
 *     garbage, a response-type message, an unknown operation, pipelined
 *     requests, a truncated request, a reset, an idle connection.
 *   - ~25%: ldapjs clients against a misbehaving raw LDAP peer on 127.0.0.1
 *     (closes at once, answers garbage, never answers, sends a Notice of
 *     Disconnection, answers with wrong message ids, answers busy, answers
 *     late, dribbles answers in 4-byte pieces, resets, closes after the
 *     bind) or a closed port, with the same client options and operations.
 * A client that cannot connect, or lost its connection without reconnect,
 * queues requests that never leave (ldapjs 1.x): it stops after one or two
 * of them.  Each operation waits at most 220 ms.  Each case's loggers carry
 * its id in a `case` field, which child loggers and records inherit; records
 * of a logger of an earlier case are dropped and counted in the summary
 * line.  Clients are destroyed and the server closed at the end of each
 * case.  Exceptions ldapjs throws from socket callbacks (e.g. `getError` on
 * an unexpected result code) are counted in the summary line.
 *
 * Messages contain ports, client ids (`1__ldap://127.0.0.1:PORT`), buffer
 * dumps, message JSON and, where ldapjs logs `err.stack` or
 * `new Error().stack`, stack traces with this machine's paths, as ldapjs
 * prints them.  Server connections get TCP_NODELAY (speed only: a search
 * answer is several small writes).  Fixtures (the certificate) live in a temp
 * dir removed at exit.  PMRAG_TIMING=1 prints one line per case to stderr;
 * PMRAG_ONLY=3,17 runs only those cases.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const tls = require('tls');
const path = require('path');
const { execFileSync } = require('child_process');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'ldapjs', 1200);
}

const args = parseArgs(process.argv);
const LDAPJS_DIR = path.join(args.deps, 'node_modules', 'ldapjs');
const INDEX_DIR = path.join(LDAPJS_DIR, 'lib');
if (!fs.existsSync(path.join(LDAPJS_DIR, 'package.json'))) {
  process.stderr.write(`missing ${LDAPJS_DIR}: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_ldapjs.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const cap = require('./_capture');

const log = new cap.EventLog(args.out, { indexDir: INDEX_DIR });
let foreign = 0;
cap.hookBunyan(log, args.deps, {
  // every logger is made for one case and carries its id (child loggers and
  // records inherit the field): a record of another case's logger is dropped
  accept: (rec) => {
    if (rec.case === log.caseId) return true;
    foreign++;
    return false;
  },
  loggerName: (rec) => [rec.name, rec.component, rec.clazz].filter(Boolean).join('/'),
});
process.noDeprecation = true; // `new Buffer()` in ldapjs 1.x and asn1
const ldap = require(LDAPJS_DIR);
const bunyan = require(require.resolve('bunyan', { paths: [LDAPJS_DIR] }));

const SINK = { write() {} };
function mkLog(component) {
  return bunyan.createLogger({ name: 'ldapjs', component, case: log.caseId, level: 'trace',
    streams: [{ type: 'raw', level: 'trace', stream: SINK }] });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noop = () => {};

let escaped = 0;
process.on('uncaughtException', (e) => {
  // ldapjs 1.x throws from some socket callbacks of a connection the case tore down
  escaped++;
  if (process.env.PMRAG_VERBOSE) process.stderr.write(`uncaught: ${(e && e.stack) || e}\n`);
});
process.on('unhandledRejection', noop);

// ---------------------------------------------------------------------------
// Fixtures: temp dir and a throw-away certificate (LDAPS cases need openssl).
const { dir: TMP, cleanup } = require('./_capture').tempDir('ldapjs');
let KEY = null;
let CERT = null;
try {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(TMP, 'key.pem'),
    '-out', path.join(TMP, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  KEY = fs.readFileSync(path.join(TMP, 'key.pem'), 'utf8');
  CERT = fs.readFileSync(path.join(TMP, 'cert.pem'), 'utf8');
} catch (e) {
  process.stderr.write('gen_ldapjs: no openssl, LDAPS cases run as plain LDAP\n');
}

// ---------------------------------------------------------------------------
// BER by hand, for the raw peers (they must not run ldapjs code themselves).
function berLen(n) {
  if (n < 128) return Buffer.from([n]);
  if (n < 256) return Buffer.from([0x81, n]);
  return Buffer.from([0x82, n >> 8, n & 255]);
}
function tlv(tag, content) { return Buffer.concat([Buffer.from([tag]), berLen(content.length), content]); }
function berInt(n, tag) {
  const bytes = [];
  do { bytes.unshift(n & 255); n = Math.floor(n / 256); } while (n > 0);
  if (bytes[0] & 0x80) bytes.unshift(0);
  return tlv(tag || 0x02, Buffer.from(bytes));
}
const str = (s, tag) => tlv(tag || 0x04, Buffer.from(s));
function ldapResult(tag, id, code, msg, extra) {
  return tlv(0x30, Buffer.concat([berInt(id), tlv(tag, Buffer.concat([
    berInt(code, 0x0a), str(''), str(msg || ''), extra || Buffer.alloc(0)]))]));
}
const RESPONSE_TAG = { 0x60: 0x61, 0x63: 0x65, 0x66: 0x67, 0x68: 0x69, 0x4a: 0x6b, 0x6c: 0x6d, 0x6e: 0x6f, 0x77: 0x78 };
const NOTICE_OF_DISCONNECTION = ldapResult(0x78, 0, 52, 'server is going down', str('1.3.6.1.4.1.1466.20036', 0x8a));

// Split complete LDAPMessages off buf: [{id, op}], rest.
function readRequests(buf) {
  const out = [];
  let off = 0;
  while (buf.length - off >= 2) {
    if (buf[off] !== 0x30) return { msgs: out, rest: Buffer.alloc(0), bad: true };
    let len = buf[off + 1];
    let p = off + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (buf.length < p + n) break;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + buf[p + k];
      p += n;
    }
    if (buf.length < p + len) break;
    let id = 0;
    if (buf[p] === 0x02) { for (let k = 0; k < buf[p + 1]; k++) id = id * 256 + buf[p + 2 + k]; }
    const op = buf[p + 2 + buf[p + 1]];
    out.push({ id, op });
    off = p + len;
  }
  return { msgs: out, rest: buf.slice(off) };
}

function bindRequest(id, name, pw) {
  return tlv(0x30, Buffer.concat([berInt(id), tlv(0x60, Buffer.concat([berInt(3), str(name), str(pw, 0x80)]))]));
}
function searchRequest(id, base) {
  return tlv(0x30, Buffer.concat([berInt(id), tlv(0x63, Buffer.concat([str(base), berInt(2, 0x0a), berInt(0, 0x0a),
    berInt(0), berInt(0), Buffer.from([0x01, 0x01, 0x00]), str('objectclass', 0x87), tlv(0x30, Buffer.alloc(0))]))]));
}

/*
 * Raw LDAP peers with one quirk each (shared by all cases; they log nothing):
 *   closer     closes every connection at once
 *   garbage    answers the first request with an HTTP error page
 *   silent     reads and never answers
 *   notice     answers the first request with a Notice of Disconnection, closes
 *   wrongid    answers every request with success under another message id
 *   busy       answers every request with resultCode 51 (busy)
 *   slow       answers success after 120 ms
 *   dribble    answers success in 4-byte pieces
 *   rst        resets the connection on the first request
 *   bindonly   answers the bind, closes on the next request
 */
function rawPeer(sock, mode) {
  sock.on('error', noop);
  sock.setNoDelay(true);
  if (mode === 'closer') { sock.destroy(); return; }
  let buf = Buffer.alloc(0);
  let n = 0;
  const answer = (m, code, msg) => {
    const tag = RESPONSE_TAG[m.op];
    return tag ? ldapResult(tag, m.id, code || 0, msg) : null;
  };
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    const { msgs, rest } = readRequests(buf);
    buf = rest;
    for (const m of msgs) {
      n++;
      if (sock.destroyed) return;
      if (m.op === 0x42) { sock.end(); return; } // unbind
      if (mode === 'garbage') { sock.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'); return; }
      if (mode === 'silent') continue;
      if (mode === 'notice') { sock.end(NOTICE_OF_DISCONNECTION); return; }
      if (mode === 'rst') { if (sock.resetAndDestroy) sock.resetAndDestroy(); else sock.destroy(); return; }
      if (mode === 'bindonly' && (n > 1 || m.op !== 0x60)) { sock.destroy(); return; }
      if (mode === 'wrongid') { const r = RESPONSE_TAG[m.op]; if (r) sock.write(ldapResult(r, m.id + 50, 0)); continue; }
      const res = mode === 'busy' ? answer(m, 51, 'server busy, try again later') : answer(m);
      if (!res) continue;
      if (mode === 'slow') setTimeout(() => { if (!sock.destroyed) sock.write(res); }, 120);
      else if (mode === 'dribble') {
        for (let k = 0; k < res.length; k += 4) {
          const piece = res.slice(k, k + 4);
          setTimeout(() => { if (!sock.destroyed) sock.write(piece); }, 1 + k / 4);
        }
      } else sock.write(res);
    }
  });
}

const RAW_MODES = ['closer', 'garbage', 'silent', 'notice', 'wrongid', 'busy', 'slow', 'dribble', 'rst', 'bindonly'];
const rawPorts = {};
const rawServers = [];
let CLOSED_PORT = 0;

function listenOn(srv) {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
  });
}

async function startRawPeers() {
  for (const mode of RAW_MODES) {
    const srv = net.createServer((sock) => rawPeer(sock, mode));
    rawServers.push(srv);
    rawPorts[mode] = await listenOn(srv);
  }
  const tmp = net.createServer();
  CLOSED_PORT = await listenOn(tmp);
  await new Promise((r) => tmp.close(r));
}

// ---------------------------------------------------------------------------
// The case's ldapjs server and its in-memory directory.
const SUFFIXES = ['o=example', 'dc=example, dc=com', 'ou=corp, o=acme'];
const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy'];
const FAULTS = ['throw', 'slow', 'hang', 'drop', 'busy', 'fail'];
const PAGED_OID = '1.2.840.113556.1.4.319';
const PSEARCH_OID = '2.16.840.1.113730.3.4.3';
const WHOAMI_OID = '1.3.6.1.4.1.4203.1.11.3';
const STARTTLS_OID = '1.3.6.1.4.1.1466.20037';

const keyOf = (dn) => ldap.parseDN(String(dn)).toString().toLowerCase();

function seedDirectory(R, suffix) {
  const db = new Map();
  const put = (dn, attributes) => db.set(keyOf(dn), { dn: ldap.parseDN(dn).toString(), attributes });
  put(suffix, { objectclass: ['top', suffix.startsWith('dc=') ? 'domain' : 'organization'], description: 'test directory' });
  put(`ou=people, ${suffix}`, { objectclass: ['top', 'organizationalUnit'], ou: 'people' });
  put(`ou=groups, ${suffix}`, { objectclass: ['top', 'organizationalUnit'], ou: 'groups' });
  const people = R.sample(NAMES, R.int(2, 6));
  for (const nm of people) {
    const a = { objectclass: ['top', 'person', 'inetOrgPerson'], cn: nm, sn: nm.toUpperCase(), uid: nm,
      mail: `${nm}@example.test`, userpassword: `pw-${nm}` };
    if (R.chance(0.4)) a.telephonenumber = `+1 555 01${R.int(10, 99)}`;
    put(`cn=${nm}, ou=people, ${suffix}`, a);
  }
  put(`cn=admins, ou=groups, ${suffix}`, { objectclass: ['top', 'groupOfNames'], cn: 'admins',
    member: people.slice(0, 2).map((nm) => `cn=${nm}, ou=people, ${suffix}`) });
  if (R.chance(0.3)) put(`ou=remote, ${suffix}`, { objectclass: ['top', 'referral'], ref: 'ldap://127.0.0.1:1/ou=remote' });
  return { db, people };
}

function buildServer(R) {
  const suffix = R.pick(SUFFIXES);
  const { db, people } = seedDirectory(R, suffix);
  const opts = { log: mkLog('server') };
  const secure = !!(KEY && R.chance(0.12));
  if (secure) { opts.certificate = CERT; opts.key = KEY; }
  if (R.chance(0.15)) opts.strictDN = false;
  const server = ldap.createServer(opts);
  server.on('error', noop);
  server.on('clientError', noop);
  const conns = new Set();
  const idleMs = !secure && R.chance(0.15) ? R.pick([40, 100]) : 0;
  server.server.on(secure ? 'secureConnection' : 'connection', (c) => {
    conns.add(c);
    c.on('close', () => conns.delete(c));
    c.setNoDelay(true);  // speed only: search answers are several small writes
    if (idleMs) c.setTimeout(idleMs);
  });
  const PS = new ldap.PersistentSearchCache();
  let changeNumber = 0;
  const pagingOn = R.chance(0.7);
  const rootPw = 'secret';

  const faultOf = (req) => {
    const s = `${req.dn || ''} ${req.filter ? req.filter.toString() : ''} ${req.newRdn || ''}`;
    const m = /cn=(throw|slow|hang|drop|busy|fail)\b/i.exec(s);
    return m && m[1].toLowerCase();
  };
  const withFaults = (handler) => function faulty(req, res, next) {
    switch (faultOf(req)) {
      case 'throw': throw new TypeError(`Cannot read properties of undefined (reading '${req.type}')`);
      case 'slow': setTimeout(() => handler.call(this, req, res, next), 120); return undefined;
      case 'hang': return undefined;
      case 'drop': req.connection.destroy(); return undefined;
      case 'busy': return next(new ldap.BusyError('backend busy, retry later'));
      case 'fail': return next(new Error('backend store unavailable'));
      default: return handler.call(this, req, res, next);
    }
  };
  const isRoot = (req) => req.connection.ldap.bindDN.equals('cn=root');
  const authorize = (req, res, next) => {
    const who = req.connection.ldap.bindDN;
    if (!who.equals('cn=root') && !who.childOf(suffix)) return next(new ldap.InsufficientAccessRightsError());
    return next();
  };
  const inScope = (req, dnStr) => {
    const d = ldap.parseDN(dnStr);
    if (req.scope === 'base') return req.dn.equals(d);
    if (req.scope === 'one') return d.rdns.length === req.dn.rdns.length + 1 && req.dn.parentOf(d);
    return req.dn.equals(d) || req.dn.parentOf(d);
  };
  const notify = (type, entry) => {
    for (const cl of PS.clientList.slice()) {
      if (!ldap.persistentSearch.checkChangeType(cl.req, type) || !inScope(cl.req, entry.dn)) continue;
      const obj = { dn: entry.dn, attributes: Object.assign({}, entry.attributes, { changetype: type, changenumber: ++changeNumber }) };
      const se = cl.res.createSearchEntry(obj);
      const ecnc = ldap.persistentSearch.getEntryChangeNotificationControl(cl.req, obj);
      if (ecnc) se.controls.push(ecnc);
      cl.res.send(se, true);
    }
  };

  // pre-chain middleware: applies to the routes mounted after it
  if (R.chance(0.35)) server.use(function stamp(req, res, next) { req.seen = Date.now(); next(); });
  if (R.chance(0.15)) {
    server.use(function denyBlocked(req, res, next) {
      if (/cn=blocked/i.test(String(req.dn))) return next(new ldap.UnwillingToPerformError('blocked entry'));
      return next();
    });
  }
  const guard = R.chance(0.5) ? [authorize] : [];

  server.bind('cn=root', (req, res, next) => {
    if (req.dn.toString() !== 'cn=root' || req.credentials !== rootPw) return next(new ldap.InvalidCredentialsError());
    res.end();
    return next();
  });
  server.bind(suffix, withFaults((req, res, next) => {
    const e = db.get(keyOf(req.dn));
    if (!e) return next(new ldap.NoSuchObjectError(req.dn.toString()));
    if (!e.attributes.userpassword || e.attributes.userpassword !== req.credentials) return next(new ldap.InvalidCredentialsError());
    res.end();
    return next();
  }));
  server.search(suffix, withFaults((req, res, next) => {
    const base = db.get(keyOf(req.dn));
    if (!base) return next(new ldap.NoSuchObjectError(req.dn.toString()));
    const ps = req.controls.find((c) => c.type === PSEARCH_OID);
    if (ps) {
      req.persistentSearch = ps;
      PS.addClient(req, res);
      req.connection.on('close', () => PS.removeClient(req, res));
      if (ps.value.changesOnly) return undefined;
    }
    let found = [];
    for (const e of db.values()) {
      if (inScope(req, e.dn) && req.filter.matches(e.attributes)) found.push(e);
    }
    if (req.sizeLimit && found.length > req.sizeLimit) {
      for (const e of found.slice(0, req.sizeLimit)) res.send({ dn: e.dn, attributes: e.attributes });
      return next(new ldap.SizeLimitExceededError());
    }
    const paged = pagingOn && req.controls.find((c) => c.type === PAGED_OID);
    if (paged) {
      const from = paged.value.cookie && paged.value.cookie.length ? parseInt(paged.value.cookie.toString(), 10) || 0 : 0;
      const size = paged.value.size || found.length;
      const more = from + size < found.length;
      found = found.slice(from, from + size);
      res.controls.push(new ldap.PagedResultsControl({ value: { size: 0, cookie: Buffer.from(more ? String(from + size) : '') } }));
    }
    for (const e of found) {
      if (e.attributes.ref && !(e.dn === req.dn.toString())) res.send(res.createSearchReference(e.attributes.ref));
      else res.send({ dn: e.dn, attributes: e.attributes });
    }
    if (!ps) res.end();
    return next();
  }));
  server.add(suffix, ...guard, withFaults((req, res, next) => {
    const k = keyOf(req.dn);
    if (db.has(k)) return next(new ldap.EntryAlreadyExistsError(req.dn.toString()));
    if (!db.has(keyOf(req.dn.parent()))) return next(new ldap.NoSuchObjectError(req.dn.parent().toString()));
    const attrs = req.toObject().attributes;
    if (!attrs.objectclass) return next(new ldap.ObjectclassViolationError('no objectclass'));
    const e = { dn: req.dn.toString(), attributes: attrs };
    db.set(k, e);
    res.end();
    notify('add', e);
    return next();
  }));
  server.modify(suffix, ...guard, withFaults((req, res, next) => {
    const e = db.get(keyOf(req.dn));
    if (!e) return next(new ldap.NoSuchObjectError(req.dn.toString()));
    for (const ch of req.changes) {
      const m = ch.modification;
      const t = m.type.toLowerCase();
      if (t === 'objectclass') return next(new ldap.ObjectclassModsProhibitedError());
      if (ch.operation === 'replace') e.attributes[t] = m.vals.length === 1 ? m.vals[0] : m.vals;
      else if (ch.operation === 'add') {
        const cur = e.attributes[t] === undefined ? [] : [].concat(e.attributes[t]);
        if (m.vals.some((v) => cur.includes(v))) return next(new ldap.AttributeOrValueExistsError(t));
        e.attributes[t] = cur.concat(m.vals);
      } else if (ch.operation === 'delete') {
        if (e.attributes[t] === undefined) return next(new ldap.NoSuchAttributeError(t));
        delete e.attributes[t];
      }
    }
    res.end();
    notify('modify', e);
    return next();
  }));
  if (R.chance(0.85)) {
    server.del(suffix, ...guard, withFaults((req, res, next) => {
      const k = keyOf(req.dn);
      const e = db.get(k);
      if (!e) return next(new ldap.NoSuchObjectError(req.dn.toString()));
      for (const other of db.values()) if (req.dn.parentOf(other.dn)) return next(new ldap.NotAllowedOnNonLeafError());
      db.delete(k);
      res.end();
      notify('delete', e);
      return next();
    }));
  }
  if (R.chance(0.8)) {
    server.compare(suffix, withFaults((req, res, next) => {
      const e = db.get(keyOf(req.dn));
      if (!e) return next(new ldap.NoSuchObjectError(req.dn.toString()));
      const v = e.attributes[req.attribute.toLowerCase()];
      if (v === undefined) return next(new ldap.NoSuchAttributeError(req.attribute));
      res.end([].concat(v).includes(req.value));
      return next();
    }));
  }
  if (R.chance(0.7)) {
    server.modifyDN(suffix, ...guard, withFaults((req, res, next) => {
      const k = keyOf(req.dn);
      const e = db.get(k);
      if (!e) return next(new ldap.NoSuchObjectError(req.dn.toString()));
      const parent = req.newSuperior && req.newSuperior.toString() ? req.newSuperior : req.dn.parent();
      const nd = `${req.newRdn.toString()}, ${parent.toString()}`;
      if (db.has(keyOf(nd))) return next(new ldap.EntryAlreadyExistsError(nd));
      db.delete(k);
      e.dn = ldap.parseDN(nd).toString();
      db.set(keyOf(nd), e);
      res.end();
      notify('modrdn', e);
      return next();
    }));
  }
  if (R.chance(0.75)) {
    server.exop(WHOAMI_OID, (req, res, next) => {
      res.value = `dn:${req.connection.ldap.bindDN.toString()}`;
      res.end();
      return next();
    });
  }
  if (R.chance(0.35)) {
    if (KEY && !secure && R.chance(0.7)) {
      // StartTLS as an ldapjs 1.x application does it: answer in clear, then
      // wrap the connection in TLS and route ldapjs' reads and writes through it
      server.exop(STARTTLS_OID, (req, res, next) => {
        const c = req.connection;
        res.end();
        const sec = new tls.TLSSocket(c, { isServer: true, key: KEY, cert: CERT });
        c.write = (b, cb) => sec.write(b, cb);
        sec.on('data', (d) => c.emit('data', d));
        sec.on('error', () => c.destroy());
        return next();
      });
    } else {
      // claims StartTLS, never upgrades: the client's handshake then fails
      server.exop(STARTTLS_OID, (req, res, next) => { res.end(); return next(); });
    }
  }
  if (R.chance(0.3)) server.unbind((req, res, next) => { res.end(); return next(); });
  if (R.chance(0.3)) server.after(function audit(req, res) { if (res.status && isRoot(req)) res.audited = true; });

  return { server, conns, secure, suffix, people, db, idleMs };
}

// ---------------------------------------------------------------------------
// Raw clients talking to the case's server.
const RAW_CLIENT_MODES = ['garbage', 'response', 'unknownop', 'pipelined', 'truncated', 'rst', 'idle', 'bindthenquit'];

function rawClient(R, target, mode, suffix) {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(t); resolve(); };
    const t = setTimeout(() => { sock.destroy(); resolve(); }, 300);
    const sock = target.secure
      ? tls.connect({ port: target.port, host: '127.0.0.1', rejectUnauthorized: false })
      : net.connect(target.port, '127.0.0.1');
    sock.on('error', noop);
    sock.on('close', done);
    sock.on('data', noop);
    sock.once(target.secure ? 'secureConnect' : 'connect', () => {
      const who = `cn=${R.pick(NAMES)}, ou=people, ${suffix}`;
      if (mode === 'garbage') sock.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      else if (mode === 'response') sock.write(ldapResult(0x61, 1, 0));
      else if (mode === 'unknownop') sock.write(tlv(0x30, Buffer.concat([berInt(1), tlv(0x7e, Buffer.alloc(0))])));
      else if (mode === 'pipelined') {
        sock.write(Buffer.concat([bindRequest(1, who, 'pw-x'), searchRequest(2, suffix), tlv(0x30, Buffer.concat([berInt(3), Buffer.from([0x42, 0x00])]))]));
      } else if (mode === 'truncated') { sock.write(bindRequest(1, who, 'pw').slice(0, 9)); setTimeout(() => sock.end(), 5); }
      else if (mode === 'rst') {
        sock.write(searchRequest(1, suffix));
        setTimeout(() => (sock.resetAndDestroy ? sock.resetAndDestroy() : sock.destroy()), 2);
      } else if (mode === 'idle') setTimeout(() => sock.end(), target.idleMs ? 200 : 20);
      else if (mode === 'bindthenquit') { sock.write(bindRequest(1, 'cn=root', 'secret')); setTimeout(() => sock.destroy(), 10); }
    });
  });
}

// ---------------------------------------------------------------------------
// Clients and their operations.
function clientOptions(R, url, secure) {
  const o = { url, log: mkLog('client') };
  const timeout = R.pick([0, 0, 0, 80, 150]);
  if (timeout) o.timeout = timeout;
  if (R.chance(0.25)) o.connectTimeout = R.pick([50, 300]);
  if (R.chance(0.12)) o.idleTimeout = R.pick([20, 60]);
  if (R.chance(0.2)) o.reconnect = R.chance(0.3) ? true : { initialDelay: R.pick([5, 20]), maxDelay: R.pick([40, 100]), failAfter: R.int(1, 4) };
  if (R.chance(0.1)) { o.queueSize = R.int(1, 3); o.queueTimeout = R.pick([30, 150]); }
  if (R.chance(0.04)) o.queueDisable = true;
  if (R.chance(0.1)) o.strictDN = false;
  if (secure) o.tlsOptions = { rejectUnauthorized: R.chance(0.08) };
  return o;
}

// Resolve with [err, value] when the callback runs or after `ms` (default
// guardMs: shorter once a client has no connection left).
let guardMs = 220;
function call(fn, ms) {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(['guard timeout']), ms || guardMs);
    try {
      fn((err, v) => { clearTimeout(t); resolve([err, v]); });
    } catch (e) { clearTimeout(t); resolve([e]); }
  });
}

function consumeSearch(client, base, opts, controls, ms) {
  return call((cb) => {
    const handler = (err, res) => {
      if (err) return cb(err);
      res.on('searchEntry', noop);
      res.on('searchReference', noop);
      res.on('page', (r, next) => { if (typeof next === 'function') next(); });
      res.on('error', (e) => cb(e));
      return res.on('end', (r) => cb(null, r));
    };
    if (controls) client.search(base, opts, controls, handler);
    else client.search(base, opts, handler);
  }, ms);
}

function dnFor(R, ctx, kind) {
  const s = ctx.suffix;
  if (kind === 'fault') return `cn=${R.pick(FAULTS)}, ou=people, ${s}`;
  const r = R.rand();
  if (r < 0.6 && ctx.people.length) return `cn=${R.pick(ctx.people)}, ou=people, ${s}`;
  if (r < 0.72) return `cn=nobody${R.int(1, 9)}, ou=people, ${s}`;
  if (r < 0.8) return R.pick([s, `ou=people, ${s}`, `ou=groups, ${s}`, `cn=admins, ou=groups, ${s}`]);
  if (r < 0.85) return R.pick(['o=elsewhere', 'dc=other, dc=org', 'cn=blocked, ou=people, ' + s]);
  if (r < 0.9) return R.pick(['cn=broken,,o=example', 'not a dn', 'cn=x+']);
  return `cn=${R.pick(FAULTS)}, ou=people, ${s}`;
}

const FILTERS = ['(objectclass=*)', '(cn=a*)', '(&(objectclass=person)(mail=*@example.test))', '(|(cn=bob)(cn=carol))',
  '(!(cn=alice))', '(uid=*)', '(telephonenumber=*)', '(member=*)', '(cn>=c)', '(sn~=ALICE)', '(cn=slow)', '(cn=hang)',
  '(cn=throw)', '(cn=busy)', '(((broken', 'cn=alice'];

async function clientOp(R, ctx, client, op) {
  const s = ctx.suffix;
  switch (op) {
    case 'bind': {
      const kind = R.pick(['good', 'good', 'good', 'root', 'badpw', 'unknown', 'anon', 'fault', 'any']);
      const who = kind === 'root' ? 'cn=root' : kind === 'anon' ? '' : kind === 'fault' ? dnFor(R, ctx, 'fault')
        : kind === 'any' ? dnFor(R, ctx) : kind === 'unknown' ? `cn=ghost, ou=people, ${s}`
          : `cn=${R.pick(ctx.people)}, ou=people, ${s}`;
      const nm = (/cn=(\w+)/.exec(who) || [])[1];
      const pw = kind === 'anon' ? '' : kind === 'root' ? (R.chance(0.8) ? 'secret' : 'guess') : kind === 'badpw' ? 'wrong' : `pw-${nm}`;
      return call((cb) => client.bind(who, pw, cb));
    }
    case 'search': {
      const base = R.chance(0.7) ? R.pick([s, `ou=people, ${s}`, `ou=groups, ${s}`]) : dnFor(R, ctx);
      const opts = { scope: R.pick(['base', 'one', 'sub', 'sub']), filter: R.pick(FILTERS) };
      if (R.chance(0.3)) opts.attributes = R.sample(['cn', 'mail', 'sn', 'uid', 'objectclass', 'member', '_hidden'], R.int(1, 3));
      if (R.chance(0.12)) opts.sizeLimit = R.int(1, 3);
      if (R.chance(0.1)) opts.typesOnly = true;
      if (R.chance(0.15)) opts.paged = R.chance(0.5) ? true : { pageSize: R.int(1, 3) };
      let sort = null;
      if (R.chance(0.12)) {
        // server-side sorting (the server ignores it); a sort key given as a
        // number cannot be encoded and the request fails at the client
        sort = new ldap.ServerSideSortingRequestControl({ value: { attributeType: R.chance(0.75) ? R.pick(['cn', 'sn', 'mail']) : 5,
          reverseOrder: R.chance(0.3) } });
      }
      return consumeSearch(client, base, opts, sort, R.chance(0.9) ? 0 : 60);
    }
    case 'psearch': {
      const ctl = new ldap.PersistentSearchControl({ type: PSEARCH_OID,
        value: { changeTypes: R.pick([15, 1, 4, 2 | 8]), changesOnly: R.chance(0.5), returnECs: R.chance(0.7) } });
      consumeSearch(client, R.pick([s, `ou=people, ${s}`]), { scope: 'sub', filter: '(objectclass=*)' }, ctl, 5000);
      await sleep(5);
      return null;
    }
    case 'add': {
      const nm = R.chance(0.8) ? `new${R.int(1, 30)}` : R.pick(FAULTS.concat(ctx.people));
      const where = R.chance(0.9) ? `ou=people, ${s}` : `ou=missing, ${s}`;
      const entry = { cn: nm, sn: nm, mail: `${nm}@example.test` };
      if (R.chance(0.9)) entry.objectclass = ['top', 'person'];
      return call((cb) => client.add(`cn=${nm}, ${where}`, entry, cb));
    }
    case 'modify': {
      const op2 = R.pick(['replace', 'replace', 'add', 'delete']);
      const attr = R.pick(['mail', 'telephonenumber', 'description', 'objectclass', 'sn']);
      // now and then a value the caller forgot to fill in: the request cannot be encoded
      const val = R.chance(0.05) ? undefined : `v${R.int(1, 5)}`;
      const two = R.chance(0.2);
      const target = dnFor(R, ctx);
      return call((cb) => {
        const change = new ldap.Change({ operation: op2, modification: { [attr]: op2 === 'delete' ? [] : [val] } });
        client.modify(target, two ? [change, new ldap.Change({ operation: 'add', modification: { description: 'x' } })] : change, cb);
      });
    }
    case 'del':
      return call((cb) => client.del(R.chance(0.15) ? `ou=people, ${s}` : dnFor(R, ctx), cb));
    case 'compare':
      return call((cb) => client.compare(dnFor(R, ctx), R.pick(['mail', 'sn', 'uid', 'cn', 'nosuchattr']),
        R.pick(['alice@example.test', 'BOB', 'carol', 'x']), cb));
    case 'modifyDN': {
      const from = dnFor(R, ctx);
      const to = R.chance(0.8) ? `cn=renamed${R.int(1, 9)}, ou=people, ${s}` : `cn=${R.pick(ctx.people)}, ou=groups, ${s}`;
      return call((cb) => client.modifyDN(from, to, cb));
    }
    case 'exop': {
      const oid = R.chance(0.8) ? WHOAMI_OID : '1.3.6.1.4.1.99999.1';
      return call((cb) => (R.chance(0.2) ? client.exop(oid, 'payload', cb) : client.exop(oid, cb)));
    }
    case 'starttls':
      return call((cb) => client.starttls({ rejectUnauthorized: R.chance(0.1) }, [], cb), 400);
    case 'abandon':
      return call((cb) => client.abandon(R.int(1, 6), cb), 200);
    case 'idle':
      await sleep(R.pick([20, 60, 130]));
      return null;
    case 'kill':
      for (const c of ctx.conns) c.destroy();
      await sleep(R.pick([2, 40]));
      return null;
    case 'shutdown':
      ctx.server.close();
      for (const c of ctx.conns) c.destroy();
      ctx.closed = true;
      await sleep(R.pick([2, 40]));
      return null;
    default:
      return null;
  }
}

const OPS = ['bind', 'bind', 'search', 'search', 'search', 'add', 'modify', 'modify', 'del', 'compare', 'modifyDN', 'exop',
  'abandon', 'idle', 'psearch', 'starttls', 'kill', 'shutdown'];
const OPS_W = [6, 4, 6, 5, 4, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1.5, 1.2, 0.6, 0.4];
function pickOp(R, raw) {
  let total = 0;
  for (const w of OPS_W) total += w;
  let x = R.rand() * total;
  for (let k = 0; k < OPS.length; k++) {
    x -= OPS_W[k];
    if (x < 0) return raw && (OPS[k] === 'kill' || OPS[k] === 'shutdown' || OPS[k] === 'psearch') ? 'search' : OPS[k];
  }
  return 'search';
}

async function runClient(R, ctx, url, secure, raw) {
  const o = clientOptions(R, url, secure);
  if (!raw && R.chance(0.15)) {
    const nm = R.pick(ctx.people);
    o.bindDN = R.chance(0.8) ? `cn=${nm}, ou=people, ${ctx.suffix}` : 'cn=root';
    o.bindCredentials = R.chance(0.8) ? (o.bindDN === 'cn=root' ? 'secret' : `pw-${nm}`) : 'nope';
  }
  let client;
  try { client = ldap.createClient(o); } catch (e) { return; }
  ctx.clients.push(client);
  for (const ev of ['error', 'connectError', 'connectTimeout', 'setupError', 'timeout', 'socketTimeout', 'resultError', 'close', 'end', 'destroy']) {
    client.on(ev, noop);
  }
  const unbindOnIdle = R.chance(0.5);
  client.once('idle', () => { if (unbindOnIdle) client.unbind(noop); });
  // a client that cannot connect, or lost its connection and does not
  // reconnect, queues requests that never leave: after one (or,
  // reconnecting, two) of them the client gives up
  let failed = false;
  let failedOps = 0;
  client.on('connect', () => { failed = false; });
  for (const ev of ['connectError', 'connectTimeout', 'setupError']) client.on(ev, () => { failed = true; });
  client.on('close', () => { if (!o.reconnect) failed = true; });
  if (R.chance(0.3)) await sleep(R.pick([1, 20]));  // operations queued before or after the connect
  const n = R.int(1, raw ? 4 : 8);
  for (let k = 0; k < n; k++) {
    if (failed && ++failedOps > (o.reconnect ? 2 : 1)) break;
    guardMs = failed ? 80 : 220;
    const op = pickOp(R, raw);
    if (R.chance(0.12) && k + 1 < n) {  // two operations in flight at once
      await Promise.all([clientOp(R, ctx, client, op), clientOp(R, ctx, client, pickOp(R, raw))]);
      k++;
    } else {
      await clientOp(R, ctx, client, op);
    }
  }
  const end = R.pick(['unbind', 'unbind', 'unbind', 'destroy', 'leave']);
  if (end === 'unbind') await call((cb) => client.unbind(cb), 200);
  else if (end === 'destroy') client.destroy();
}

async function serverCase(R) {
  const ctx = buildServer(R);
  ctx.clients = [];
  ctx.port = await listenOn(ctx.server);
  const url = `${ctx.secure ? 'ldaps' : 'ldap'}://127.0.0.1:${ctx.port}`;
  const nClients = R.pick([1, 1, 1, 2, 2, 3]);
  const parallel = R.chance(0.2);
  const jobs = [];
  if (R.chance(0.18)) {
    const mode = R.pick(RAW_CLIENT_MODES);
    jobs.push(() => rawClient(R, ctx, mode, ctx.suffix));
  }
  for (let k = 0; k < nClients; k++) jobs.push(() => runClient(R, ctx, url, ctx.secure, false));
  if (parallel) await Promise.all(jobs.map((j) => j()));
  else for (const j of R.shuffle(jobs)) await j();
  await finishCase(ctx);
}

async function rawPeerCase(R) {
  const ctx = { suffix: R.pick(SUFFIXES), people: R.sample(NAMES, 3), clients: [], conns: new Set(), server: null };
  const mode = R.pick(RAW_MODES.concat(['closed', 'closed']));
  const url = `ldap://127.0.0.1:${mode === 'closed' ? CLOSED_PORT : rawPorts[mode]}`;
  const nClients = R.pick([1, 1, 1, 2]);
  for (let k = 0; k < nClients; k++) await runClient(R, ctx, url, false, true);
  await finishCase(ctx);
}

async function finishCase(ctx) {
  await sleep(5);
  for (const c of ctx.clients) { try { c.destroy(); } catch (e) { /* already gone */ } }
  if (ctx.server) {
    if (!ctx.closed) { try { ctx.server.close(); } catch (e) { /* closed */ } }
    for (const c of ctx.conns) c.destroy();
  }
  await sleep(3);
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const kind = R.chance(0.75) ? 'server' : 'rawpeer';
  const t0 = Date.now();
  log.caseId = ck;
  try {
    await (kind === 'server' ? serverCase(R) : rawPeerCase(R));
  } catch (e) {
    if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${e.stack}\n`);
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${kind} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
}

async function main() {
  const t0 = Date.now();
  await startRawPeers();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  for (const s of rawServers) s.close();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    ` (${foreign} records of earlier cases dropped` + (escaped ? `, ${escaped} exceptions escaped ldapjs` : '') + ')\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
