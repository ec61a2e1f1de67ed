#!/usr/bin/env node
'use strict';
/*
 * Event log of the npm socket.io-client (with its engine.io-client transport
 * layer), both TypeScript compiled by tsc to CommonJS (`build/cjs`), which log
 * through npm `debug` (`const debug = (0, debug_1.default)("socket.io-client:manager")`).
 *
 *   node gen_socketio_client.js --repo            # prints the directory to index
 *   node gen_socketio_client.js --out LOG.csv.gz [--cases 900] [--seed 1] [--deps DIR]
 *
 * Indexed directory: `<deps>/client-cjs`, prepared by --repo (and by every
 * run) as verbatim copies of the .js files of
 * node_modules/socket.io-client/build/cjs -> client-cjs/socket.io-client/ and
 * node_modules/engine.io-client/build/cjs  -> client-cjs/engine.io-client/
 * (.d.ts files left out).  The code runs from node_modules; stack frames are
 * mapped onto the copies (same lines), so truth paths look like
 * `client-cjs/socket.io-client/manager.js`.  socket.io-parser and the server
 * packages (socket.io, engine.io) are outside it: their records are dropped.
 *
 * A case is one client lifetime against its own socket.io 4.8 server started
 * by the case on 127.0.0.1 (a fresh port per case, so the client's manager
 * cache never links two cases): transports (polling, websocket, polling then
 * upgrade, fetch, an unusable webtransport first with tryAllTransports),
 * server options (no upgrades, polling-only, small maxHttpBufferSize, short
 * ping interval, custom path), namespaces (/, /chat, /admin with an auth
 * middleware accepting or rejecting the auth payload, an unknown namespace),
 * forceNew/multiplex, then a random sequence of operations: emits with acks,
 * acks with timeouts (answered late or never), ack retries (`retries` /
 * `ackTimeout`) against a flaky handler, volatile emits, binary payloads,
 * rooms and broadcasts, server-initiated emits asking for acks, bursts,
 * oversized payloads, buffering before connect, socket disconnect/connect;
 * and an ending: client disconnect, server kick, the server dropping the
 * transport (reconnect), the server restarting on the same port (reconnect
 * attempts then success), or the engine closing.  Failure cases: a closed
 * port (reconnection attempts, reconnect_failed), a black-hole TCP server
 * (connect timeout), a wrong path (404), a protocol-less URL (https against
 * http).  Each case draws from its own PRNG seeded with `<seed>-<i>`.
 */
const fs = require('fs');
const net = require('net');
const http = require('http');
const path = require('path');
const cap = require('./_capture');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'socketio-client', 900);
}

const PKGS = ['socket.io-client', 'engine.io-client'];

function prepareRepo(deps) {
  const indexDir = path.join(deps, 'client-cjs');
  const nm = path.join(deps, 'node_modules');
  for (const p of PKGS) {
    const src = fs.realpathSync(path.join(nm, p, 'build', 'cjs'));
    const dst = path.join(indexDir, p);
    fs.rmSync(dst, { recursive: true, force: true });
    const copy = (s, d) => {
      fs.mkdirSync(d, { recursive: true });
      for (const ent of fs.readdirSync(s, { withFileTypes: true })) {
        if (ent.isDirectory()) copy(path.join(s, ent.name), path.join(d, ent.name));
        else if (ent.name.endsWith('.js') && !ent.name.endsWith('.d.ts')) fs.copyFileSync(path.join(s, ent.name), path.join(d, ent.name));
      }
    };
    copy(src, dst);
  }
  return indexDir;
}

const TRACE = [];
const CUR = { state: null, R: null };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function waitEvent(em, ev, ms) {
  return new Promise((resolve) => {
    let done = false;
    const t = setTimeout(() => { if (!done) { done = true; em.off(ev, on); resolve(null); } }, ms);
    const on = (...args) => { if (!done) { done = true; clearTimeout(t); resolve(args.length ? args : [true]); } };
    em.once(ev, on);
  });
}

function waitCount(em, ev, n, ms) {
  return new Promise((resolve) => {
    let seen = 0;
    const on = () => { if (++seen >= n) fin(); };
    const fin = () => { clearTimeout(t); em.off(ev, on); resolve(seen); };
    const t = setTimeout(fin, ms);
    em.on(ev, on);
  });
}

function waitAny(em, evs, ms) {
  return new Promise((resolve) => {
    let done = false;
    const offs = [];
    const fin = (v) => { if (done) return; done = true; clearTimeout(t); offs.forEach((f) => f()); resolve(v); };
    const t = setTimeout(() => fin(null), ms);
    for (const ev of evs) {
      const on = (...args) => fin([ev, ...args]);
      em.on(ev, on);
      offs.push(() => em.off(ev, on));
    }
  });
}

async function main() {
  const args = parseArgs(process.argv);
  if (!fs.existsSync(path.join(args.deps, 'node_modules', 'socket.io-client'))) {
    process.stderr.write(`socket.io-client not installed in ${args.deps} (npm ci there)\n`);
    process.exit(1);
  }
  const indexDir = prepareRepo(args.deps);
  if (args.repo) { process.stdout.write(indexDir + '\n'); return; }
  if (!args.out) { process.stderr.write('--out FILE required\n'); process.exit(2); }

  const nm = path.join(args.deps, 'node_modules');
  const srcDirs = PKGS.map((p) => [fs.realpathSync(path.join(nm, p, 'build', 'cjs')) + path.sep, path.join(fs.realpathSync(indexDir), p) + path.sep]);
  const log = new cap.EventLog(args.out, {
    indexDir,
    mapLocation: (file, line, column) => {
      for (const [src, dst] of srcDirs) if (file.startsWith(src)) return { file: dst + file.slice(src.length), line, column };
      return null;
    },
  });
  cap.hookDebug(log, args.deps, { enable: 'socket.io-client*,engine.io-client*' });
  const { Server } = require(path.join(nm, 'socket.io'));
  const ioc = require(path.join(nm, 'socket.io-client'));
  const eio = require(path.join(nm, 'engine.io-client'));
  const usedPorts = new Set();

  // ---------------------------------------------------------------- servers
  function setupServer(io, sopt) {
    const flaky = new Map();
    const attach = (nsp) => {
      nsp.on('connection', (s) => {
        s.on('echo', (...a) => { const cb = a.pop(); if (typeof cb === 'function') cb(...a); });
        s.on('ignore', () => {});
        s.on('delay', (ms, cb) => { const t = setTimeout(() => { if (typeof cb === 'function') cb('late', ms); }, ms); t.unref(); });
        s.on('flaky', (k, cb) => {
          const key = s.id + ':' + k;
          const n = (flaky.get(key) || 0) + 1;
          flaky.set(key, n);
          if (n >= 2 && typeof cb === 'function') cb('ok', n);
        });
        s.on('join', (room, cb) => { s.join(room); if (typeof cb === 'function') cb(room); });
        s.on('leave', (room) => s.leave(room));
        s.on('shout', (room, msg) => nsp.to(room).emit('news', room, msg));
        s.on('kick', () => setTimeout(() => s.disconnect(true), 2));
        s.on('drop', () => setTimeout(() => s.conn.close(), 2));
        s.on('ask', (n) => { for (let k = 0; k < n; k++) s.emit('question', k, () => {}); });
        s.on('spam', (n, bin) => { for (let k = 0; k < n; k++) s.emit('tick', k, bin ? Buffer.alloc(4, k + 1) : 'x'.repeat(k)); });
        s.on('bin', (buf, cb) => { if (typeof cb === 'function') cb(Buffer.from([1, 2, 3, buf && buf.length || 0]), { nested: [buf] }); });
        s.on('bye', () => { s.emit('bye', 'server says bye'); setTimeout(() => s.disconnect(true), 2); });
      });
    };
    attach(io.of('/'));
    attach(io.of('/chat'));
    const admin = io.of('/admin');
    admin.use((socket, next) => {
      const a = socket.handshake.auth || {};
      if (a.token === 'secret') next();
      else { const e = new Error('unauthorized'); e.data = { reason: a.token ? 'bad token' : 'no token' }; next(e); }
    });
    attach(admin);
    if (sopt.slowMw) {
      io.of('/chat').use((socket, next) => setTimeout(next, sopt.slowMw));
    }
  }

  async function startServer(R, port) {
    const sopt = {
      path: R.chance(0.12) ? '/rt/' : '/socket.io',
      pingInterval: R.chance(0.15) ? R.int(30, 80) : 25000,
      pingTimeout: R.chance(0.1) ? R.int(30, 80) : 20000,
      maxHttpBufferSize: R.chance(0.12) ? R.pick([300, 2000, 20000]) : 1e6,
      transports: R.chance(0.08) ? ['polling'] : R.chance(0.05) ? ['websocket'] : ['polling', 'websocket'],
      allowUpgrades: !R.chance(0.08),
      slowMw: R.chance(0.08) ? R.int(5, 40) : 0,
      recovery: R.chance(0.1),
    };
    return startServerWith(sopt, port);
  }

  async function startServerWith(sopt, port) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const hs = http.createServer((req, res) => { res.writeHead(404); res.end('not found'); });
      const opts = {
        path: sopt.path, pingInterval: sopt.pingInterval, pingTimeout: sopt.pingTimeout,
        maxHttpBufferSize: sopt.maxHttpBufferSize, transports: sopt.transports, allowUpgrades: sopt.allowUpgrades,
        serveClient: false, connectTimeout: 2000, destroyUpgradeTimeout: 30,
      };
      if (sopt.recovery) opts.connectionStateRecovery = { maxDisconnectionDuration: 5000, skipMiddlewares: true };
      const io = new Server(hs, opts);
      setupServer(io, sopt);
      const ok = await new Promise((resolve) => {
        hs.once('error', () => resolve(false));
        hs.listen(port || 0, '127.0.0.1', () => resolve(true));
      });
      if (!ok) { io.close(); await sleep(10); continue; }
      const p = hs.address().port;
      if (!port && usedPorts.has(p)) { io.close(); continue; }
      usedPorts.add(p);
      return { io, hs, port: p, sopt, close: () => new Promise((r) => { io.close(() => r()); hs.closeAllConnections(); setTimeout(r, 50); }) };
    }
    throw new Error('cannot start server');
  }

  async function freePort() {
    for (;;) {
      const s = net.createServer();
      await new Promise((r) => s.listen(0, '127.0.0.1', r));
      const p = s.address().port;
      await new Promise((r) => s.close(r));
      if (!usedPorts.has(p)) { usedPorts.add(p); return p; }
    }
  }

  async function blackhole() {
    const socks = [];
    const s = net.createServer((c) => { socks.push(c); c.on('error', () => {}); });
    await new Promise((r) => s.listen(0, '127.0.0.1', r));
    usedPorts.add(s.address().port);
    return { port: s.address().port, close: () => { socks.forEach((c) => c.destroy()); return new Promise((r) => s.close(() => r())); } };
  }

  // ---------------------------------------------------------------- client
  function clientOpts(R, sopt) {
    const o = {
      path: sopt ? sopt.path : '/socket.io',
      reconnectionDelay: R.int(5, 40),
      reconnectionDelayMax: R.int(40, 120),
      randomizationFactor: R.pick([0, 0.2, 0.5]),
      timeout: R.pick([300, 1000, 2000]),
    };
    const tr = R.rand();
    if (tr < 0.3) { /* default: polling then upgrade */ } else if (tr < 0.55) o.transports = ['websocket'];
    else if (tr < 0.7) o.transports = ['polling'];
    else if (tr < 0.78) o.transports = R.chance(0.5) ? [eio.Fetch, eio.NodeWebSocket] : [eio.NodeXHR, eio.WebSocket];
    else if (tr < 0.84) o.transports = ['websocket', 'polling'];
    else if (tr < 0.87) { o.transports = ['webtransport', 'polling', 'websocket']; o.tryAllTransports = true; o.timeout = R.int(40, 120); o.reconnectionAttempts = 1; } else { o.transports = ['polling', 'websocket']; o.upgrade = false; }
    if (R.chance(0.1)) o.rememberUpgrade = true;
    if (R.chance(0.15)) o.forceNew = true;
    if (R.chance(0.08)) o.multiplex = false;
    if (R.chance(0.15)) { o.retries = R.int(1, 3); o.ackTimeout = R.int(20, 60); }
    if (R.chance(0.1)) o.query = { room: 'r' + R.int(1, 3), v: String(R.int(1, 99)) };
    if (R.chance(0.1)) o.extraHeaders = { 'x-case': 'yes' };
    if (R.chance(0.07)) o.reconnectionAttempts = R.int(1, 3);
    if (R.chance(0.05)) o.autoConnect = false;
    return o;
  }

  function instrument(sock, R) {
    const binAnswers = R.chance(0.3);
    sock.on('question', (k, cb) => { if (typeof cb === 'function') cb(k * 2, binAnswers && k % 2 === 0 ? Buffer.from('ans') : 'ans'); });
    sock.on('tick', () => {});
    sock.on('news', () => {});
    sock.on('connect_error', () => {});
    sock.on('bye', () => {});
    sock.on('error', () => {});
    sock.io.on('error', () => {});
  }

  async function mk(url, co, before) {
    const sock = ioc(url, co);
    CUR.state.sockets.push(sock);
    instrument(sock, CUR.R);
    if (before) before(sock);
    if (co.autoConnect === false) { await sleep(2); sock.connect(); }
    return sock;
  }

  async function connected(sock, ms) {
    if (sock.connected) return true;
    const r = await waitAny(sock, ['connect', 'connect_error'], ms);
    return !!(r && r[0] === 'connect');
  }

  function payload(R) {
    const k = R.int(0, 6);
    if (k === 0) return 'hello';
    if (k === 1) return R.int(0, 1000);
    if (k === 2) return { a: R.int(1, 9), b: ['x', 'y'], c: { d: null } };
    if (k === 3) return [1, 'two', { three: 3 }];
    if (k === 4) return Buffer.alloc(R.int(1, 64), R.int(1, 255));
    if (k === 5) return { file: Buffer.from('abc'), meta: { n: 1 } };
    return 'x'.repeat(R.int(10, 400));
  }

  const ackP = (fn, ms) => new Promise((resolve) => {
    const t = setTimeout(() => resolve('nocb'), ms);
    fn((...a) => { clearTimeout(t); resolve(a); });
  });

  async function doOps(R, sock, state) {
    const nops = R.int(1, 7);
    for (let k = 0; k < nops; k++) {
      if (!sock.connected && !R.chance(0.2)) break;
      const op = R.pick(['echo', 'echo', 'emitWithAck', 'timeoutLate', 'timeoutOk', 'noack', 'volatile', 'binary',
        'room', 'ask', 'spam', 'burst', 'big', 'secondNsp', 'reconnectSocket', 'send', 'flaky', 'compress', 'delayAck']);
      const tOp = Date.now();
      TRACE.push(op);
      try { await runOp_(R, sock, state, op, k); } finally { TRACE[TRACE.length - 1] += '=' + (Date.now() - tOp); }
    }
  }

  async function runOp_(R, sock, state, op, k) {
    {
      switch (op) {
        case 'echo':
          await ackP((cb) => sock.emit('echo', payload(R), cb), 300);
          break;
        case 'emitWithAck':
          try { await Promise.race([sock.timeout(300).emitWithAck('echo', payload(R), payload(R)), sleep(350)]); } catch (e) { /* timeout */ }
          break;
        case 'timeoutLate':
          await ackP((cb) => sock.timeout(R.int(10, 30)).emit('delay', R.int(40, 60), cb), 200);
          break;
        case 'timeoutOk':
          await ackP((cb) => sock.timeout(200).emit('echo', payload(R), cb), 300);
          break;
        case 'delayAck':
          await ackP((cb) => sock.emit('delay', R.int(5, 20), cb), 200);
          break;
        case 'noack':
          await ackP((cb) => sock.timeout(R.int(10, 40)).emit('ignore', payload(R), cb), 200);
          break;
        case 'volatile':
          for (let j = R.int(1, 3); j > 0; j--) sock.volatile.emit('echo', payload(R));
          await sleep(5);
          break;
        case 'binary':
          await ackP((cb) => sock.emit('bin', Buffer.alloc(R.int(1, 100), 7), cb), 300);
          break;
        case 'room': {
          const room = 'room' + R.int(1, 3);
          await ackP((cb) => sock.emit('join', room, cb), 300);
          sock.emit('shout', room, payload(R));
          await waitEvent(sock, 'news', 200);
          if (R.chance(0.3)) sock.emit('leave', room);
          break;
        }
        case 'ask': {
          const n = R.int(1, 3);
          sock.emit('ask', n);
          await waitCount(sock, 'question', n, 200);
          await sleep(3);
          break;
        }
        case 'spam': {
          const n = R.int(2, 8);
          sock.emit('spam', n, R.chance(0.3));
          await waitCount(sock, 'tick', n, 200);
          break;
        }
        case 'burst': {
          const n = R.int(3, 15);
          for (let j = 0; j < n; j++) sock.emit('echo', j, 'b'.repeat(R.int(0, 300)));
          await sleep(R.int(5, 30));
          break;
        }
        case 'big':
          sock.emit('echo', 'B'.repeat(R.pick([1000, 5000, 30000])));
          await ackP((cb) => sock.emit('echo', 1, cb), 150);
          break;
        case 'secondNsp': {
          const nsp = R.pick(['/chat', '/admin', '/']);
          const s2 = sock.io.socket(nsp, { auth: { token: R.chance(0.7) ? 'secret' : 'nope' } });
          instrument(s2, R);
          state.sockets.push(s2);
          if (!s2.active) s2.connect();
          if (await connected(s2, 300)) {
            await ackP((cb) => s2.emit('echo', payload(R), cb), 300);
            if (R.chance(0.5)) s2.disconnect();
          }
          break;
        }
        case 'reconnectSocket':
          sock.disconnect();
          if (R.chance(0.5)) sock.emit('echo', 'while disconnected');
          await sleep(R.int(1, 10));
          sock.connect();
          await connected(sock, 400);
          break;
        case 'send':
          sock.send(payload(R));
          await sleep(3);
          break;
        case 'flaky':
          if (sock._opts.retries) await ackP((cb) => sock.emit('flaky', k, cb), 400);
          else await ackP((cb) => sock.timeout(R.int(10, 40)).emit('flaky', k, cb), 200);
          break;
        case 'compress':
          await ackP((cb) => sock.compress(false).emit('echo', payload(R), cb), 300);
          break;
        default:
          break;
      }
    }
  }

  async function ending(R, sock, state) {
    const e = R.pick(['disconnect', 'disconnect', 'kick', 'bye', 'drop', 'restart', 'engineClose', 'managerClose']);
    TRACE.push('end:' + e);
    const tEnd = Date.now();
    try { await ending_(R, sock, state, e); } finally { TRACE[TRACE.length - 1] += '=' + (Date.now() - tEnd); }
  }

  async function ending_(R, sock, state, e) {
    if (!sock.connected) { sock.disconnect(); return; }
    switch (e) {
      case 'disconnect':
        sock.disconnect();
        break;
      case 'kick':
        sock.emit('kick');
        await waitEvent(sock, 'disconnect', 300);
        break;
      case 'bye':
        sock.emit('bye');
        await waitEvent(sock, 'disconnect', 300);
        break;
      case 'drop':
      case 'engineClose': {
        if (e === 'drop') sock.emit('drop'); else if (sock.io.engine) sock.io.engine.close();
        await waitEvent(sock, 'disconnect', e === 'drop' ? 300 : 60);
        if (e === 'drop' && R.chance(0.8)) {
          await connected(sock, 600);
          if (sock.connected && R.chance(0.6)) await ackP((cb) => sock.emit('echo', 'after reconnect', cb), 300);
        }
        sock.disconnect();
        break;
      }
      case 'restart': {
        const srv = state.server;
        await srv.close();
        await sleep(R.int(20, 120));
        state.server = await startServerWith(srv.sopt, srv.port);
        await connected(sock, 800);
        if (sock.connected) await doOps(R, sock, state);
        sock.disconnect();
        break;
      }
      case 'managerClose':
        sock.io._close();
        await sleep(5);
        break;
      default:
        break;
    }
  }

  async function normalCase(R, state) {
    TRACE.push('normalCase');
    const srv = await startServer(R, 0);
    state.server = srv;
    const co = clientOpts(R, srv.sopt);
    const nsp = R.pick(['', '', '/chat', '/admin', '/admin', '/nowhere']);
    if (nsp === '/admin' || R.chance(0.2)) co.auth = R.chance(0.65) ? { token: 'secret' } : R.chance(0.5) ? { token: 'wrong' } : {};
    const host = R.chance(0.2) ? 'localhost' : '127.0.0.1';
    const url = `http://${host}:${srv.port}${nsp}`;
    const early = R.chance(0.15);
    const sock = await mk(url, co, (s) => {
      if (early) { s.emit('echo', 'buffered', () => {}); s.volatile.emit('echo', 'lost'); }
    });
    const tConn = Date.now();
    const ok = await connected(sock, 1200);
    TRACE.push('conn=' + (Date.now() - tConn));
    TRACE.push(ok ? 'connected' : 'noconnect', JSON.stringify(co.transports || 'default'));
    if (!ok) {
      // connect_error: maybe fix the auth and retry
      if (nsp === '/admin' && R.chance(0.6)) {
        sock.auth = { token: 'secret' };
        sock.connect();
        if (await connected(sock, 600)) await doOps(R, sock, state);
      }
      sock.disconnect();
      return;
    }
    await doOps(R, sock, state);
    await ending(R, sock, state);
  }

  async function refusedCase(R, state) {
    TRACE.push('refusedCase');
    const port = await freePort();
    const co = clientOpts(R, null);
    co.reconnectionAttempts = R.int(1, 4);
    if (R.chance(0.2)) co.reconnection = false;
    const sock = await mk(`http://127.0.0.1:${port}`, co);
    if (R.chance(0.3)) sock.emit('echo', 'queued', () => {});
    if (co.reconnection === false) await waitEvent(sock, 'connect_error', 800);
    else await waitEvent(sock.io, 'reconnect_failed', 1500);
    if (R.chance(0.3)) {
      // server comes up late: a manual retry succeeds
      const srv = await startServerWith({ path: '/socket.io', pingInterval: 25000, pingTimeout: 20000, maxHttpBufferSize: 1e6, transports: ['polling', 'websocket'], allowUpgrades: true }, port);
      state.server = srv;
      sock.connect();
      if (await connected(sock, 800)) await doOps(R, sock, state);
    }
    sock.disconnect();
  }

  async function blackholeCase(R, state) {
    TRACE.push('blackholeCase');
    const bh = await blackhole();
    state.extra.push(bh);
    const co = clientOpts(R, null);
    co.timeout = R.int(30, 80);
    co.reconnectionAttempts = R.int(1, 2);
    const sock = await mk(`http://127.0.0.1:${bh.port}`, co);
    await waitAny(sock.io, ['reconnect_failed'], co.timeout * (co.reconnectionAttempts + 1) + 400);
    sock.disconnect();
  }

  async function wrongPathCase(R, state) {
    TRACE.push('wrongPathCase');
    const srv = await startServer(R, 0);
    state.server = srv;
    const co = clientOpts(R, srv.sopt);
    co.path = R.pick(['/nope', '/io', '/socket']);
    co.reconnectionAttempts = R.int(1, 3);
    if (R.chance(0.2)) co.reconnection = false;
    const sock = await mk(`http://127.0.0.1:${srv.port}`, co);
    await waitAny(sock.io, ['reconnect_failed'], 900);
    sock.disconnect();
  }

  async function protocolLessCase(R, state) {
    TRACE.push('protocolLessCase');
    const srv = await startServer(R, 0);
    state.server = srv;
    const co = clientOpts(R, srv.sopt);
    co.reconnectionAttempts = R.int(1, 2);
    co.rejectUnauthorized = false;
    const sock = await mk(`127.0.0.1:${srv.port}`, co);
    await waitAny(sock.io, ['reconnect_failed'], 900);
    sock.disconnect();
  }

  async function runCase(R) {
    const state = { server: null, sockets: [], extra: [] };
    CUR.state = state;
    CUR.R = R;
    const kind = R.rand();
    try {
      if (kind < 0.74) await normalCase(R, state);
      else if (kind < 0.84) await refusedCase(R, state);
      else if (kind < 0.9) await blackholeCase(R, state);
      else if (kind < 0.95) await wrongPathCase(R, state);
      else await protocolLessCase(R, state);
    } finally {
      await sleep(8);
      for (const s of state.sockets) {
        try {
          if (s.active) s.disconnect();
          if (s.io._readyState !== 'closed' || s.io._reconnecting) s.io._close();
        } catch (e) { /* ignore */ }
      }
      if (state.server) await state.server.close();
      for (const x of state.extra) await x.close();
      await sleep(5);
    }
  }

  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) {
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    log.caseId = `c${String(i).padStart(5, '0')}`;
    const tc = Date.now();
    try {
      await Promise.race([runCase(R), sleep(5000)]);
    } catch (e) {
      // a failing case is still a case; keep what was logged
      if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId}: ${e.stack}\n`);
    }
    if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId} ${Date.now() - tc}ms ${TRACE.join(' ')}\n`);
    TRACE.length = 0;
    log.endCase();
  }
  await log.finish();
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
