#!/usr/bin/env node
'use strict';
/*
 * Event log of the npm ioredis client (TypeScript compiled by tsc to
 * CommonJS in `built/`), which logs through its own wrapper around npm
 * `debug`: `const debug = (0, utils_1.Debug)("connection")` returns
 * `wrappedDebug` (built/utils/debug.js), a pure logging wrapper that
 * truncates string arguments longer than 200 characters and forwards to a
 * `debug("ioredis:connection")` instance.  Records are attributed to the
 * caller of wrappedDebug (code.wrapped=1); the message is what `debug`
 * prints for the truncated arguments (`%o` of command args = util.inspect
 * on one line).
 *
 *   node gen_ioredis.js --repo            # prints the directory to index
 *   node gen_ioredis.js --out LOG.csv.gz [--cases 1500] [--seed 1] [--deps DIR]
 *
 * Indexed directory: <deps>/node_modules/ioredis/built.
 *
 * Servers: Debian's redis-server, started by the run on free 127.0.0.1 ports
 * with `--save '' --appendonly no` in a temp dir (removed at the end): a
 * master (with an ACL user `app`), a replica of it, a sentinel monitoring
 * the master, and a 3-node cluster (made with `redis-cli --cluster create`).
 * All are stopped at the end.  Admin actions (publish, CLIENT KILL, CLIENT
 * PAUSE, SCRIPT FLUSH, slot moves) go through a raw RESP socket, not ioredis.
 *
 * A case is one client: a `Redis` (75%), a sentinel-backed `Redis` (8%) or a
 * `Cluster` (17%) with seeded options (db, connectionName, lazyConnect,
 * offline queue on/off, ready check, maxRetriesPerRequest, retryStrategy,
 * commandTimeout, keyPrefix, auto-pipelining, auto-resubscribe/resend,
 * readOnly on the replica, monitor mode), doing a random sequence of
 * operations: strings/hashes/lists/sets, wrong-type errors, pipelines,
 * multi/exec (with queued errors, discard), Lua scripts through
 * defineCommand (EVALSHA with NOSCRIPT fallback after SCRIPT FLUSH), scan
 * streams, pub/sub (subscribe/psubscribe/unsubscribe with messages
 * published by the admin socket), blocking pops with timeouts, commands
 * queued offline, the server killing the connection mid-case (CLIENT KILL:
 * reconnect, resubscribe, resend), CLIENT PAUSE with commandTimeout, db
 * switches; ending with quit, disconnect or disconnect-and-reconnect.
 * Failure cases: a closed port (retries until retryStrategy gives up,
 * queued commands flushed), wrong password/user, a sentinel asked for an
 * unknown master, a cluster with no reachable startup node, a cluster
 * client pointed at a non-cluster server; cluster cases also see MOVED and
 * ASK redirections (a slot is moved or put in migrating state mid-case and
 * restored after), NAT maps, slot refresh intervals and cluster pub/sub.
 * Each case draws from its own PRNG seeded with `<seed>-<i>`.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const cap = require('./_capture');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'ioredis', 1500);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TRACE = [];

// ------------------------------------------------------------ raw RESP admin
function encode(args) {
  let s = `*${args.length}\r\n`;
  for (const a of args) { const b = Buffer.from(String(a)); s += `$${b.length}\r\n${b}\r\n`; }
  return s;
}

function parseReply(buf, i) { // -> [value, next] or null if incomplete
  const eol = buf.indexOf('\r\n', i);
  if (eol < 0) return null;
  const t = String.fromCharCode(buf[i]);
  const line = buf.toString('utf8', i + 1, eol);
  if (t === '+' || t === ':') return [line, eol + 2];
  if (t === '-') return [new Error(line), eol + 2];
  if (t === '$') {
    const n = parseInt(line, 10);
    if (n < 0) return [null, eol + 2];
    if (buf.length < eol + 2 + n + 2) return null;
    return [buf.toString('utf8', eol + 2, eol + 2 + n), eol + 2 + n + 2];
  }
  if (t === '*') {
    const n = parseInt(line, 10);
    const out = [];
    let j = eol + 2;
    for (let k = 0; k < n; k++) {
      const r = parseReply(buf, j);
      if (!r) return null;
      out.push(r[0]);
      j = r[1];
    }
    return [out, j];
  }
  return [line, eol + 2];
}

class Admin {
  constructor(port) { this.port = port; this.sock = null; this.buf = Buffer.alloc(0); this.waiters = []; }
  async open() {
    this.sock = net.connect(this.port, '127.0.0.1');
    this.sock.setNoDelay(true);
    this.sock.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (;;) {
        if (!this.waiters.length) break;
        const r = parseReply(this.buf, 0);
        if (!r) break;
        this.buf = this.buf.subarray(r[1]);
        this.waiters.shift()(r[0]);
      }
    });
    this.sock.on('error', () => {});
    await new Promise((res, rej) => { this.sock.once('connect', res); this.sock.once('error', rej); });
  }
  cmd(...args) {
    return new Promise((resolve) => { this.waiters.push(resolve); this.sock.write(encode(args)); });
  }
  close() { if (this.sock) this.sock.destroy(); }
}

async function adminOnce(port, ...args) {
  const a = new Admin(port);
  await a.open();
  try { return await a.cmd(...args); } finally { a.close(); }
}

async function freePort(used) {
  for (;;) {
    const s = net.createServer();
    await new Promise((r) => s.listen(0, '127.0.0.1', r));
    const p = s.address().port;
    await new Promise((r) => s.close(r));
    if (!used.has(p) && !used.has(p + 10000)) { used.add(p); return p; }
  }
}

// ------------------------------------------------------------ redis servers
class Servers {
  constructor() { this.procs = []; this.used = new Set(); this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-ioredis-')); }

  async spawnRedis(extra, confText) {
    const port = await freePort(this.used);
    const dir = path.join(this.tmp, String(port));
    fs.mkdirSync(dir);
    let args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--protected-mode', 'no', '--logfile', '', '--daemonize', 'no'];
    if (confText !== undefined) {
      const conf = path.join(dir, 'sentinel.conf');
      fs.writeFileSync(conf, `port ${port}\nbind 127.0.0.1\nprotected-mode no\ndir ${dir}\n${confText}`);
      args = [conf, '--sentinel'];
    }
    const p = spawn('redis-server', args.concat(extra || []), { stdio: 'ignore' });
    this.procs.push(p);
    for (let k = 0; k < 200; k++) {
      try { const r = await adminOnce(port, 'PING'); if (r === 'PONG') return port; } catch (e) { /* not yet */ }
      await sleep(20);
    }
    throw new Error('redis-server did not start on ' + port);
  }

  async start() {
    this.master = await this.spawnRedis([]);
    await adminOnce(this.master, 'ACL', 'SETUSER', 'app', 'on', '>apppw', '~*', '&*', '+@all');
    this.replica = await this.spawnRedis(['--replicaof', '127.0.0.1', String(this.master)]);
    this.sentinel = await this.spawnRedis([], `sentinel monitor mymaster 127.0.0.1 ${this.master} 1\n` +
      'sentinel down-after-milliseconds mymaster 60000\nsentinel resolve-hostnames no\n');
    this.cluster = [];
    for (let k = 0; k < 3; k++) {
      this.cluster.push(await this.spawnRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', '5000']));
    }
    const r = spawnSync('redis-cli', ['--cluster', 'create', ...this.cluster.map((p) => `127.0.0.1:${p}`), '--cluster-yes'],
      { encoding: 'utf8', timeout: 30000 });
    if (r.status !== 0) throw new Error('redis-cli --cluster create failed: ' + r.stdout + r.stderr);
    for (let k = 0; k < 200; k++) {
      const infos = await Promise.all(this.cluster.map((p) => adminOnce(p, 'CLUSTER', 'INFO')));
      if (infos.every((s) => /cluster_state:ok/.test(s))) break;
      await sleep(50);
    }
    this.nodeIds = {};
    for (const p of this.cluster) this.nodeIds[p] = await adminOnce(p, 'CLUSTER', 'MYID');
    // wait for the replica and the sentinel to see the master
    for (let k = 0; k < 100; k++) {
      const info = await adminOnce(this.replica, 'INFO', 'replication');
      if (/master_link_status:up/.test(info)) break;
      await sleep(50);
    }
  }

  async slotOwner(slot) {
    const slots = await adminOnce(this.cluster[0], 'CLUSTER', 'SLOTS');
    for (const s of slots) if (slot >= parseInt(s[0], 10) && slot <= parseInt(s[1], 10)) return parseInt(s[2][1], 10);
    return null;
  }

  stop() { // synchronous (also used from the 'exit' handler)
    for (const p of this.procs) { try { if (p.exitCode === null) p.kill('SIGKILL'); } catch (e) { /* gone */ } }
    try { fs.rmSync(this.tmp, { recursive: true, force: true }); } catch (e) { /* ignore */ }
  }

  async stopAndWait() {
    const waits = this.procs.map((p) => (p.exitCode !== null || p.signalCode ? null : new Promise((r) => p.once('exit', r))));
    this.stop();
    await Promise.race([Promise.all(waits), sleep(3000)]);
    this.procs = [];
  }
}

// ------------------------------------------------------------ main
async function main() {
  const args = parseArgs(process.argv);
  const nm = path.join(args.deps, 'node_modules');
  const indexDir = path.join(nm, 'ioredis', 'built');
  if (!fs.existsSync(indexDir)) {
    process.stderr.write(`ioredis not installed in ${args.deps} (npm ci there)\n`);
    process.exit(1);
  }
  if (args.repo) { process.stdout.write(fs.realpathSync(indexDir) + '\n'); return; }
  if (!args.out) { process.stderr.write('--out FILE required\n'); process.exit(2); }

  const log = new cap.EventLog(args.out, { indexDir, wrappers: [['built/utils/debug.js', 'wrappedDebug']] });
  cap.hookDebug(log, args.deps, { enable: 'ioredis:*' });
  const Redis = require(path.join(nm, 'ioredis'));
  const { Cluster } = Redis;

  // ioredis prints unhandled 'error' events of its internal connections and
  // password warnings on the console: keep stderr for the summary
  for (const k of ['error', 'warn']) {
    const orig = console[k];
    console[k] = (...a) => { if (!/^\[(ioredis|WARN)\]/.test(String(a[0]))) orig(...a); };
  }
  process.on('unhandledRejection', () => {});
  const S = new Servers();
  const cleanup = () => S.stop();
  process.on('exit', cleanup);
  process.on('SIGINT', () => { cleanup(); process.exit(130); });
  process.on('SIGTERM', () => { cleanup(); process.exit(143); });
  await S.start();
  const admin = new Admin(S.master);
  await admin.open();
  const cadmins = {};
  for (const p of S.cluster) { cadmins[p] = new Admin(p); await cadmins[p].open(); }

  const swallow = (p) => (p && p.catch ? p.catch((e) => e) : p);
  const withTimeout = (p, ms) => Promise.race([swallow(p), sleep(ms).then(() => 'timeout')]);

  function baseOpts(R, port) {
    const delays = [R.int(5, 30), R.int(5, 30), R.int(5, 30), R.int(5, 30)]; // drawn now, not when retrying
    const o = { host: '127.0.0.1', port, retryStrategy: (n) => (n > 4 ? null : delays[n - 1]), reconnectOnError: null };
    if (R.chance(0.25)) o.db = R.int(1, 3);
    if (R.chance(0.2)) o.connectionName = 'case-' + R.int(1, 99);
    if (R.chance(0.15)) o.lazyConnect = true;
    if (R.chance(0.1)) o.enableOfflineQueue = false;
    if (R.chance(0.15)) o.enableReadyCheck = false;
    if (R.chance(0.25)) o.maxRetriesPerRequest = R.pick([0, 1, 2, null, -1]);
    if (R.chance(0.2)) o.commandTimeout = R.int(20, 80);
    if (R.chance(0.15)) o.keyPrefix = 'p' + R.int(1, 3) + ':';
    if (R.chance(0.15)) o.enableAutoPipelining = true;
    if (R.chance(0.1)) o.autoResubscribe = false;
    if (R.chance(0.1)) o.autoResendUnfulfilledCommands = false;
    if (R.chance(0.1)) o.connectTimeout = R.int(50, 200);
    if (R.chance(0.08)) o.retryStrategy = R.pick([null, () => 'no', (n) => (n > 2 ? undefined : 10)]);
    if (R.chance(0.05)) o.disconnectTimeout = 5;
    if (R.chance(0.1)) { o.username = 'app'; o.password = 'apppw'; }
    return o;
  }

  const payload = (R) => R.pick(['v', 'hello world', String(R.int(0, 1e6)), 'x'.repeat(R.int(150, 400)), JSON.stringify({ a: R.int(1, 9) })]);

  async function killClient(r) {
    const st = r.stream;
    if (!st || !st.localPort) return;
    await admin.cmd('CLIENT', 'KILL', 'ADDR', `127.0.0.1:${st.localPort}`);
  }

  async function doOps(R, r, st) {
    const n = R.int(1, 7);
    for (let k = 0; k < n; k++) {
      const op = R.pick(['strings', 'strings', 'hash', 'list', 'set', 'wrongtype', 'pipeline', 'multi', 'multiErr',
        'script', 'scriptFlush', 'eval', 'scan', 'pubsub', 'psub', 'blpop', 'kill', 'killBusy', 'pause', 'select',
        'offline', 'mget', 'expire', 'bigArgs', 'dbsize']);
      TRACE.push(op);
      const key = `k:${st.id}:${k}`;
      switch (op) {
        case 'strings':
          await withTimeout(r.set(key, payload(R)), 300);
          await withTimeout(r.get(key), 300);
          if (R.chance(0.4)) await withTimeout(r.incr(key + ':n'), 300);
          break;
        case 'hash':
          await withTimeout(r.hset(key + ':h', 'f1', payload(R), 'f2', R.int(1, 9)), 300);
          await withTimeout(r.hgetall(key + ':h'), 300);
          break;
        case 'list':
          await withTimeout(r.rpush(key + ':l', 'a', 'b', 'c'), 300);
          await withTimeout(r.lrange(key + ':l', 0, -1), 300);
          break;
        case 'set':
          await withTimeout(r.sadd(key + ':s', ...['x', 'y', 'z'].slice(0, R.int(1, 3))), 300);
          await withTimeout(r.smembers(key + ':s'), 300);
          break;
        case 'wrongtype':
          await withTimeout(r.set(key, 'str'), 300);
          await withTimeout(r.lpush(key, 'x'), 300);
          break;
        case 'pipeline': {
          const p = r.pipeline();
          for (let j = R.int(2, 6); j > 0; j--) p.set(key + ':' + j, payload(R)).get(key + ':' + j);
          if (R.chance(0.3)) p.hget(key + ':1', 'nope');
          await withTimeout(p.exec(), 400);
          break;
        }
        case 'multi':
          await withTimeout(r.multi().set(key, '1').incr(key).get(key).exec(), 400);
          break;
        case 'multiErr':
          if (R.chance(0.5)) await withTimeout(r.multi().set(key, 'x').call('nosuchcommand').exec(), 400);
          else { const m = r.multi().set(key, 'x'); await withTimeout(m.discard(), 300); }
          break;
        case 'scriptFlush':
          await admin.cmd('SCRIPT', 'FLUSH');
          // fallthrough
        case 'script':
          if (!r.bump) r.defineCommand('bump', { numberOfKeys: 1, lua: 'return redis.call("INCRBY", KEYS[1], ARGV[1])' });
          await withTimeout(r.bump(key + ':b', R.int(1, 5)), 300);
          if (R.chance(0.4)) { const p = r.pipeline(); p.bump(key + ':b', 1); p.bump(key + ':c', 2); await withTimeout(p.exec(), 400); }
          break;
        case 'eval':
          await withTimeout(r.eval(R.chance(0.8) ? 'return {KEYS[1], ARGV[1]}' : 'return redis.call("nope")', 1, key, 'v'), 300);
          break;
        case 'scan': {
          await withTimeout(r.mset(key + ':a', 1, key + ':b', 2, key + ':c', 3), 300);
          const s = R.pick([() => r.scanStream({ match: `k:${st.id}:*`, count: R.int(2, 20) }),
            () => r.hscanStream(key + ':h', { count: 2 }), () => r.sscanStream(key + ':s')])();
          await withTimeout(new Promise((res) => { s.on('data', () => {}); s.on('end', res); s.on('error', res); }), 400);
          break;
        }
        case 'pubsub': case 'psub': {
          const ch = `ch:${st.id}`;
          if (op === 'pubsub') await withTimeout(r.subscribe(ch, ch + ':2'), 300);
          else await withTimeout(r.psubscribe(`ch:${st.id}*`), 300);
          r.on('message', () => {});
          r.on('pmessage', () => {});
          for (let j = R.int(1, 3); j > 0; j--) await admin.cmd('PUBLISH', ch, payload(R));
          await sleep(3);
          if (R.chance(0.3)) { await killClient(r); await sleep(40); await admin.cmd('PUBLISH', ch, 'after'); await sleep(5); }
          if (R.chance(0.7)) {
            if (op === 'pubsub') await withTimeout(r.unsubscribe(), 300); else await withTimeout(r.punsubscribe(), 300);
          } else if (R.chance(0.5)) {
            await withTimeout(r.get(key), 200); // error: not allowed in subscriber mode
            return 'sub';
          } else return 'sub';
          break;
        }
        case 'blpop':
          if (R.chance(0.5)) setTimeout(() => admin.cmd('RPUSH', (r.options.keyPrefix || '') + key + ':q', 'item'), 10);
          await withTimeout(r.blpop(key + ':q', 0.05), 400);
          break;
        case 'kill':
          await killClient(r);
          await sleep(R.int(1, 40));
          await withTimeout(r.get(key), 300);
          break;
        case 'killBusy': {
          const pr = swallow(r.blpop(key + ':never', 0.2));
          await sleep(5);
          await killClient(r);
          await withTimeout(pr, 600);
          break;
        }
        case 'pause':
          await admin.cmd('CLIENT', 'PAUSE', String(R.int(30, 80)), 'ALL');
          await withTimeout(r.set(key, 'during pause'), 300);
          break;
        case 'select':
          await withTimeout(r.select(R.int(0, 3)), 300);
          await withTimeout(r.set(key, 'db'), 300);
          break;
        case 'offline': {
          r.disconnect(true); // reconnect: commands wait in the offline queue
          await withTimeout(Promise.all([r.set(key, '1'), r.get(key)]), 400);
          break;
        }
        case 'mget':
          await withTimeout(r.mget(key, key + ':x', key + ':y'), 300);
          break;
        case 'expire':
          await withTimeout(r.set(key, 'e', 'PX', 50), 300);
          await withTimeout(r.pttl(key), 300);
          break;
        case 'bigArgs':
          await withTimeout(r.set(key, 'B'.repeat(R.int(190, 500)), 'EX', 30), 300);
          await withTimeout(r.call('ECHO', Buffer.from('bin' + 'x'.repeat(R.int(1, 300)))), 300);
          break;
        case 'dbsize':
          await withTimeout(r.dbsize(), 300);
          break;
        default:
          break;
      }
    }
    return 'ok';
  }

  async function ending(R, r) {
    const e = R.pick(['quit', 'quit', 'disconnect', 'disconnectReconnect', 'quitOffline']);
    TRACE.push('end:' + e);
    if (e === 'quit') await withTimeout(r.quit(), 300);
    else if (e === 'disconnect') r.disconnect();
    else if (e === 'disconnectReconnect') {
      r.disconnect(true);
      await withTimeout(r.ping(), 300);
      await withTimeout(r.quit(), 300);
    } else {
      r.disconnect();
      await withTimeout(r.quit(), 300); // quit while closed
    }
    await sleep(2);
  }

  async function standaloneCase(R, st) {
    const o = baseOpts(R, S.master);
    const kind = R.rand();
    let port = S.master;
    if (kind < 0.08) { port = await freePort(S.used); o.port = port; TRACE.push('refused'); } else if (kind < 0.13) { o.password = R.pick(['wrong', 'apppw']); o.username = R.pick([undefined, 'app', 'nobody']); TRACE.push('badauth'); } else if (kind < 0.2) { o.port = S.replica; o.readOnly = R.chance(0.7); TRACE.push('replica'); } else if (kind < 0.23) { o.monitor = true; TRACE.push('monitor'); }
    const r = new Redis(o);
    st.clients.push(r);
    r.on('error', () => {});
    if (o.lazyConnect && R.chance(0.5)) await withTimeout(r.connect(), 300);
    if (R.chance(0.3) || kind < 0.08) {
      // commands before ready: offline queue
      await withTimeout(Promise.all([r.set(`k:${st.id}:pre`, 'x'), r.get(`k:${st.id}:pre`)]), kind < 0.08 ? 500 : 300);
    }
    if (kind < 0.13) { await sleep(R.int(20, 80)); r.disconnect(); return; }
    if (o.port === S.replica) {
      await withTimeout(r.get(`k:${st.id}:x`), 300);
      await withTimeout(r.set(`k:${st.id}:x`, '1'), 300); // READONLY
      if (R.chance(0.5)) await doOps(R, r, st);
      await ending(R, r);
      return;
    }
    if (o.monitor) {
      await sleep(20);
      await withTimeout(r.get('x'), 200);
      r.disconnect();
      return;
    }
    const res = await doOps(R, r, st);
    if (res === 'sub' && R.chance(0.5)) await withTimeout(r.unsubscribe(), 200);
    await ending(R, r);
  }

  async function sentinelCase(R, st) {
    const o = { sentinels: [{ host: '127.0.0.1', port: S.sentinel }], name: 'mymaster', sentinelRetryStrategy: (n) => (n > 2 ? null : 10),
      retryStrategy: (n) => (n > 3 ? null : 10) };
    const k = R.rand();
    if (k < 0.15) { o.name = 'nosuchmaster'; TRACE.push('unknown-master'); } else if (k < 0.4) { o.role = 'slave'; TRACE.push('slave'); }
    if (R.chance(0.3)) o.sentinels.push({ host: '127.0.0.1', port: await freePort(S.used) });
    if (R.chance(0.3)) o.failoverDetector = true;
    if (R.chance(0.2)) o.updateSentinels = false;
    if (R.chance(0.2)) o.enableTLSForSentinelMode = false;
    if (R.chance(0.2)) o.db = R.int(1, 3);
    const r = new Redis(o);
    st.clients.push(r);
    r.on('error', () => {});
    if (o.name === 'nosuchmaster') { await withTimeout(r.get('x'), 400); r.disconnect(); return; }
    await withTimeout(r.get(`k:${st.id}:a`), 400);
    if (o.role !== 'slave') await doOps(R, r, st);
    await ending(R, r);
  }

  async function clusterCase(R, st) {
    const kind = R.rand();
    const o = { clusterRetryStrategy: (n) => (n > 2 ? null : 10), redisOptions: { retryStrategy: (n) => (n > 2 ? null : 10) } };
    let nodes = [{ host: '127.0.0.1', port: R.pick(S.cluster) }];
    if (kind < 0.1) { nodes = [{ host: '127.0.0.1', port: await freePort(S.used) }]; TRACE.push('cl-refused'); } else if (kind < 0.18) { nodes = [{ host: '127.0.0.1', port: S.master }]; TRACE.push('cl-notcluster'); }
    if (R.chance(0.3)) nodes.push({ host: '127.0.0.1', port: R.pick(S.cluster) });
    if (R.chance(0.15)) nodes.push({ host: 'localhost', port: R.pick(S.cluster) });
    if (R.chance(0.15)) o.slotsRefreshInterval = R.int(20, 60);
    if (R.chance(0.1)) o.lazyConnect = true;
    if (R.chance(0.15)) o.enableReadyCheck = false;
    if (R.chance(0.15)) o.scaleReads = R.pick(['all', 'slave']);
    if (R.chance(0.1)) o.enableOfflineQueue = false;
    if (R.chance(0.12)) {
      o.natMap = {};
      for (const p of S.cluster) o.natMap[`10.0.0.${p % 200}:${p}`] = { host: '127.0.0.1', port: p };
    }
    if (R.chance(0.1)) o.keyPrefix = 'cp:';
    const c = new Cluster(nodes, o);
    st.clients.push(c);
    c.on('error', () => {});
    c.on('node error', () => {});
    if (kind < 0.18) { await withTimeout(c.get('x'), 500); c.disconnect(); return; }
    if (o.lazyConnect) await withTimeout(c.connect(), 400);
    const tag = `{t${st.id}}`;
    const nops = R.int(1, 6);
    for (let k = 0; k < nops; k++) {
      const op = R.pick(['strings', 'strings', 'pipeline', 'crossPipe', 'multi', 'moved', 'ask', 'pubsub', 'script', 'mget', 'refresh']);
      TRACE.push('cl-' + op);
      const key = `ck:${st.id}:${k}`;
      switch (op) {
        case 'strings':
          await withTimeout(c.set(key, payload(R)), 300);
          await withTimeout(c.get(key), 300);
          break;
        case 'pipeline': {
          const p = c.pipeline();
          for (let j = R.int(1, 4); j > 0; j--) p.set(`${tag}:${j}`, j).get(`${tag}:${j}`);
          await withTimeout(p.exec(), 400);
          break;
        }
        case 'crossPipe':
          await withTimeout(c.pipeline().set('a' + st.id, 1).set('b' + st.id, 2).exec(), 300);
          break;
        case 'multi':
          await withTimeout(c.multi().set(`${tag}:m`, 1).incr(`${tag}:m`).exec(), 400);
          break;
        case 'mget':
          await withTimeout(c.mget(`${tag}:1`, `${tag}:2`), 300);
          if (R.chance(0.4)) await withTimeout(c.mget('x' + st.id, 'y' + st.id), 300); // CROSSSLOT
          break;
        case 'script':
          if (!c.bump) c.defineCommand('bump', { numberOfKeys: 1, lua: 'return redis.call("INCRBY", KEYS[1], ARGV[1])' });
          await withTimeout(c.bump(key, 2), 300);
          break;
        case 'pubsub': {
          const ch = 'cch' + st.id;
          await withTimeout(c.subscribe(ch), 300);
          c.on('message', () => {});
          await cadmins[S.cluster[0]].cmd('PUBLISH', ch, 'm');
          await sleep(5);
          await withTimeout(c.unsubscribe(ch), 300);
          break;
        }
        case 'refresh':
          await withTimeout(new Promise((res) => c.refreshSlotsCache(res)), 300);
          break;
        case 'moved': case 'ask': {
          if (c.status !== 'ready') break;
          const mkey = (o.keyPrefix || '') + `mv:${st.id}:${k}`;
          const slot = parseInt(await cadmins[S.cluster[0]].cmd('CLUSTER', 'KEYSLOT', mkey), 10);
          const owner = await S.slotOwner(slot);
          const other = S.cluster.find((p) => p !== owner);
          if (!owner || !other) break;
          if (op === 'moved') {
            for (const p of [other, owner, ...S.cluster.filter((q) => q !== other && q !== owner)]) {
              await cadmins[p].cmd('CLUSTER', 'SETSLOT', String(slot), 'NODE', S.nodeIds[other]);
            }
            await withTimeout(c.get(mkey.slice((o.keyPrefix || '').length)), 400);
            await withTimeout(c.get(mkey.slice((o.keyPrefix || '').length)), 300);
            for (const p of [owner, other, ...S.cluster.filter((q) => q !== other && q !== owner)]) {
              await cadmins[p].cmd('CLUSTER', 'SETSLOT', String(slot), 'NODE', S.nodeIds[owner]);
            }
          } else {
            await cadmins[other].cmd('CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', S.nodeIds[owner]);
            await cadmins[owner].cmd('CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', S.nodeIds[other]);
            await withTimeout(c.get(mkey.slice((o.keyPrefix || '').length)), 400);
            await cadmins[owner].cmd('CLUSTER', 'SETSLOT', String(slot), 'STABLE');
            await cadmins[other].cmd('CLUSTER', 'SETSLOT', String(slot), 'STABLE');
          }
          break;
        }
        default:
          break;
      }
    }
    const e = R.pick(['quit', 'disconnect', 'disconnectReconnect']);
    TRACE.push('end:' + e);
    if (e === 'quit') await withTimeout(c.quit(), 400);
    else if (e === 'disconnect') c.disconnect();
    else { c.disconnect(true); await withTimeout(c.get('x' + st.id), 400); c.disconnect(); }
    await sleep(3);
  }

  async function runCase(R, i) {
    const st = { id: i, clients: [] };
    const k = R.rand();
    try {
      if (k < 0.75) await standaloneCase(R, st);
      else if (k < 0.83) await sentinelCase(R, st);
      else await clusterCase(R, st);
    } finally {
      for (const c of st.clients) {
        try { if (c.status !== 'end') c.disconnect(); } catch (e) { /* ignore */ }
      }
      await sleep(3);
    }
  }

  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) {
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    log.caseId = `c${String(i).padStart(5, '0')}`;
    const tc = Date.now();
    try {
      await Promise.race([runCase(R, i), sleep(5000)]);
    } catch (e) {
      if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId}: ${e.stack}\n`);
    }
    if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId} ${Date.now() - tc}ms ${TRACE.join(' ')}\n`);
    TRACE.length = 0;
    log.endCase();
    if (i % 100 === 99) await admin.cmd('FLUSHALL');
  }
  await log.finish();
  admin.close();
  for (const a of Object.values(cadmins)) a.close();
  await S.stopAndWait();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
