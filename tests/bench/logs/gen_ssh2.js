#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `ssh2` 1.17.0 (a pure-JavaScript SSH2 client and server,
 * plain CommonJS), both sides in this process on 127.0.0.1.  Installed with
 * `npm ci --ignore-scripts`: neither ssh2's optional C++ crypto binding nor
 * the optional `cpu-features` is built, so ssh2 runs its JavaScript fallbacks
 * (it logs "Custom crypto binding not available").
 *
 *   node gen_ssh2.js --repo                    # prints the dir to index
 *   node gen_ssh2.js --out .deps/logs/ssh2.csv.gz [--cases 400] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/ssh2, the whole package (truth paths
 * `ssh2/lib/...`; its tests, examples and the pagent helper are indexed too,
 * never run).
 *
 * Logging: ssh2 has no logger.  The application may pass a function as the
 * `debug` option of `Client.connect()` and of `new Server()`; ssh2 keeps it
 * on its objects and calls it with one string: the client's
 * `this.config.debug` / a local `debug`, the protocol's `this._debug`
 * (`Protocol.js`: `this._debug = (msg) => { debug(msg); }`), kex code
 * reading `self._debug` or `this._protocol._debug` into a local, the SFTP
 * object's own `this._debug`.  Messages are literals, template literals and
 * concatenations ("Outbound: Sending KEXINIT", `Handshake: (local) KEX
 * method: ${localKex}`, `Inbound: CHANNEL_DATA (r:${recipient},
 * ${data.length})`, `SFTP: Outbound: Buffered OPEN`...).  The server wraps
 * the function once per connection in an arrow (`server.js`: `debug = (msg)
 * => { origDebug(`${debugPrefix}${msg}`); }`) that prefixes a connection id
 * made from `process.hrtime()` (`[12109.178304535] `).  Each case passes its
 * own capturing function to its client and its server; activity = the string
 * that function receives (server records with their `[hrtime] ` prefix),
 * level = `DEBUG`, logger = `ssh2/client` or `ssh2/server` (the side whose
 * function got the record; SFTP requests served by the server log on the
 * server side).  Emitter: the first stack frame outside _capture.js and the
 * capturing function, after the frames of two functions declared pure
 * wrappers: the arrow stored in `this._debug` by Protocol's constructor
 * (V8 names it `Protocol._debug`; its body only forwards the message) and
 * the server's per-connection `debug` arrow (its body only prefixes the
 * message and forwards it).  So records through the protocol object or the
 * server have code.wrapped=1; the client's direct `debug(...)` calls in
 * `client.js` and the client-side SFTP's have 0.
 *
 * A case is one SSH session with its own seeded PRNG, drawn up front (the
 * server answers by what it is asked, not by new draws, so timing does not
 * shift the choices):
 *   - ~70%: an ssh2 Server made for the case (host keys a subset of one
 *     ed25519, one ECDSA and one RSA key generated once per run with ssh2's
 *     `utils.generateKeyPairSync`; sometimes its own algorithm lists, a
 *     banner, a greeting, an OpenSSH-like ident, keepalives, slow auth
 *     decisions, a rekey after auth, a drop after a while) and one ssh2
 *     Client with random options (algorithm lists restricted per category
 *     from ssh2's supported lists, as arrays or in prepend/remove form,
 *     with one algorithm in common; compression; host verification that
 *     accepts, denies, hashes or answers later; keepalives; its own ident;
 *     strictVendor off) authenticating as one of seven users by
 *     `none`, password (right, wrong, expired and changed), publickey (the
 *     user's key, a passphrase-protected one, a stranger's), an in-process
 *     agent (`BaseAgent` subclass holding some keys, sometimes refusing to
 *     sign), keyboard-interactive (one or two prompts, an empty first round,
 *     a second factor after a partial success) or hostbased, in ssh2's
 *     default order, an explicit order, or an `authHandler` function that
 *     also yields invalid attempts; then 1-5 operations: exec of commands
 *     the server answers (output, stderr, exit codes, exit signals, stdin
 *     echoed, large outputs that need window adjusts, unknown commands
 *     rejected, commands that make the server rekey, open X11 or forwarded
 *     channels, or drop the connection), env, pty and X11 and agent
 *     forwarding requests, a shell with a pty (window changes, signals),
 *     SFTP against an in-memory file tree (open/read/write/close, stat,
 *     readdir, mkdir, rmdir, rename, remove, realpath, readlink, symlink,
 *     setstat, fsetstat, readFile/writeFile, fastGet/fastPut with local
 *     temp files, a handle closed twice; missing files, permission denied,
 *     handlers the server leaves out so ssh2 answers OP_UNSUPPORTED, a full
 *     disk), subsystems, direct-tcpip
 *     channels (accepted, rejected, no handler), remote forwarding with
 *     channels back from the server (accepted or rejected by the client),
 *     OpenSSH streamlocal forwarding (with a channel back) and
 *     no-more-sessions, client rekeys, idle pauses with keepalives,
 *     concurrent channels; then a clean end, a destroy, or a destroy while
 *     the last operation runs.
 *   - ~6%: algorithm negotiation fails (no common kex, host key format,
 *     cipher, MAC or compression; group exchange, which the ssh2 server
 *     does not implement).
 *   - ~5%: the server turns the connection down (no connection listener,
 *     a listener that ends it, a client ident it refuses, maxConnections 0).
 *   - ~5%: a readyTimeout of 40-120 ms runs out (a silent peer, an ident
 *     and then nothing, a server that never decides the authentication).
 *   - ~8%: the client against a raw TCP peer run by the generator (closes
 *     at once, answers HTTP, speaks SSH-1.5, sends an ident then garbage,
 *     an ident then IGNORE / DEBUG / UNIMPLEMENTED / unknown messages and a
 *     KEXINIT nothing matches, an ident then DISCONNECT, a long greeting
 *     before the ident) or a closed port.
 *   - ~6%: a raw TCP client talking to the case's ssh2 server (HTTP, SSH-1,
 *     an ident then close, crafted pre-kex DEBUG / IGNORE messages and a
 *     KEXINIT with no common cipher, a truncated KEXINIT, a service request
 *     before key exchange, an ident and then silence).
 * Each case's capturing functions only record while that case is the open
 * one: records of an earlier case's objects are dropped and counted in the
 * summary line.  At the end of a case the client is destroyed, the server
 * closed and every socket of the case destroyed.  Exceptions that escape
 * ssh2 callbacks are counted in the summary line.
 *
 * Both sides' sockets get TCP_NODELAY (speed only: without it every
 * handshake waits ~200 ms on delayed ACKs).  Messages contain ports, the
 * server's hrtime connection ids, channel numbers, byte counts and the
 * negotiated algorithm lists, which depend on what node's OpenSSL offers.
 * Fixtures (local files for fastGet/fastPut) live in a temp dir removed at
 * exit.  PMRAG_TIMING=1 prints one line per case to stderr (kind, user,
 * duration, events, the client's errors); PMRAG_ONLY=3,17 runs only those
 * cases; PMRAG_VERBOSE=1 prints escaped exceptions.
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const crypto = require('crypto');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'ssh2', 400);
}

const args = parseArgs(process.argv);
const SSH2_DIR = path.join(args.deps, 'node_modules', 'ssh2');
if (!fs.existsSync(path.join(SSH2_DIR, 'package.json'))) {
  process.stderr.write(`missing ${SSH2_DIR}: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(SSH2_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_ssh2.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

const cap = require('./_capture');
const { Server, Client, BaseAgent, utils } = require(SSH2_DIR);
// the algorithm lists ssh2 supports with this node's OpenSSL (not exported by index.js)
const ALG = require(path.join(SSH2_DIR, 'lib', 'protocol', 'constants.js'));
const { STATUS_CODE, OPEN_MODE } = utils.sftp;

const log = new cap.EventLog(args.out, {
  indexDir: SSH2_DIR,
  wrappers: [
    ['ssh2/lib/protocol/Protocol.js', 'Protocol._debug'],
    ['ssh2/lib/server.js', 'debug'],
  ],
});

let foreign = 0;
// One capturing function per case and side: a record reaching the function
// of a case that is no longer open belongs to no case and is dropped.
function debugFor(ck, side) {
  const logger = `ssh2/${side}`;
  const fn = function capturedDebug(msg) {
    if (log.caseId !== ck) { foreign++; return; }
    log.record(msg, 'DEBUG', logger, fn);
  };
  return fn;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noop = () => {};

let escaped = 0;
process.on('uncaughtException', (e) => {
  // ssh2 throws from a few socket callbacks of connections a case tore down
  escaped++;
  if (process.env.PMRAG_VERBOSE) process.stderr.write(`uncaught: ${(e && e.stack) || e}\n`);
});
process.on('unhandledRejection', noop);

// Resolve when fn calls its callback, or after ms.
function within(ms, fn) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => { if (!done) { done = true; clearTimeout(t); resolve(v); } };
    const t = setTimeout(() => finish('timeout'), ms);
    try { fn(finish); } catch (e) { finish(e); }
  });
}

// ---------------------------------------------------------------------------
// Fixtures: keys (once per run), local files for fastGet/fastPut.
const { dir: TMP, cleanup } = require('./_capture').tempDir('ssh2');

const gen = (type, opts) => utils.generateKeyPairSync(type, opts);
const HOST_KEYS = {
  ed25519: gen('ed25519').private,
  ecdsa: gen('ecdsa', { bits: 256 }).private,
  rsa: gen('rsa', { bits: 2048 }).private,
};
const HOST_KEY_FORMATS = {
  ed25519: ['ssh-ed25519'],
  ecdsa: ['ecdsa-sha2-nistp256'],
  rsa: ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const PASSPHRASE = 'open sesame';
const USER_KEYS = {
  alice: gen('ed25519'),
  aliceLocked: gen('ed25519', { passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 2 }),
  bob: gen('rsa', { bits: 2048 }),
  bobEc: gen('ecdsa', { bits: 384 }),
  frank: gen('ecdsa', { bits: 256 }),
  stranger: gen('ed25519'),
};
const PUBLIC = {};
for (const [k, v] of Object.entries(USER_KEYS)) PUBLIC[k] = utils.parseKey(v.public);
const blobOf = (k) => PUBLIC[k].getPublicSSH().toString('base64');

const LOCAL_SRC = path.join(TMP, 'upload.bin');
fs.writeFileSync(LOCAL_SRC, crypto.createHash('sha512').update('pmrag').digest().toString('hex').repeat(700));
// fixed content, so sizes in the messages repeat from run to run
const DATA_BIN = Buffer.from('0123456789abcdef'.repeat(3000));

/*
 * Users of every server: password, keys and the methods the server lists as
 * left after a failure.  carol answers keyboard-interactive prompts; dave's
 * password is expired (the server asks for a new one); erin needs her
 * password, then a code (partial success); frank logs in hostbased from
 * `workstation`; guest gets in with `none`.  Other names never get in.
 */
const USERS = {
  alice: { password: 'wonderland', keys: ['alice', 'aliceLocked'], methods: ['publickey', 'password'] },
  bob: { password: 'builder', keys: ['bob', 'bobEc'], methods: ['publickey', 'password', 'keyboard-interactive'] },
  carol: { password: 'tea-party', keys: [], methods: ['keyboard-interactive'] },
  dave: { password: 'expired', keys: [], change: true, methods: ['password'] },
  erin: { password: 'first-factor', keys: [], twoFactor: true, methods: ['password', 'keyboard-interactive'] },
  frank: { password: 'hb-pass', keys: [], hostbased: 'frank', methods: ['hostbased', 'password'] },
  guest: { password: null, keys: [], none: true, methods: ['none'] },
};
const OTP = '424242';
const OTHER_METHODS = ['publickey', 'password', 'keyboard-interactive'];

// An in-process agent holding some of the users' keys.
class MemAgent extends BaseAgent {
  constructor(names, refuse) {
    super();
    this.names = names;
    this.refuse = refuse;
  }

  getIdentities(cb) {
    cb(null, this.names.map((n) => PUBLIC[n]));
  }

  sign(pubKey, data, options, cb) {
    if (typeof options === 'function') { cb = options; options = {}; }
    if (this.refuse) return cb(new Error('agent refused operation'));
    const blob = pubKey.getPublicSSH().toString('base64');
    const name = this.names.find((n) => blobOf(n) === blob);
    if (!name) return cb(new Error('key not held by agent'));
    const priv = utils.parseKey(USER_KEYS[name].private, name === 'aliceLocked' ? PASSPHRASE : undefined);
    const sig = priv.sign(data, options && options.hash);
    if (sig instanceof Error) return cb(sig);
    return cb(null, sig);
  }
}

// ---------------------------------------------------------------------------
// Raw SSH packets (unencrypted, before key exchange) for raw peers and clients.
function u32(n) { const b = Buffer.alloc(4); b.writeUInt32BE(n >>> 0); return b; }
function sshString(s) { const b = Buffer.isBuffer(s) ? s : Buffer.from(s); return Buffer.concat([u32(b.length), b]); }
function sshPacket(payload) {
  let pad = 8 - ((payload.length + 5) % 8);
  if (pad < 4) pad += 8;
  return Buffer.concat([u32(payload.length + pad + 1), Buffer.from([pad]), payload, Buffer.alloc(pad)]);
}
function kexinit(lists) {
  const l = Object.assign({ kex: 'curve25519-sha256', hostKey: 'ssh-ed25519', cipher: 'aes128-ctr', mac: 'hmac-sha2-256', comp: 'none' }, lists);
  return sshPacket(Buffer.concat([Buffer.from([20]), Buffer.alloc(16, 7), sshString(l.kex), sshString(l.hostKey),
    sshString(l.cipher), sshString(l.cipher), sshString(l.mac), sshString(l.mac), sshString(l.comp), sshString(l.comp),
    sshString(''), sshString(''), Buffer.from([0]), u32(0)]));
}
const MSG_IGNORE = sshPacket(Buffer.concat([Buffer.from([2]), sshString('padding for traffic analysis')]));
const MSG_DEBUG = sshPacket(Buffer.concat([Buffer.from([4, 1]), sshString('peer is in maintenance mode'), sshString('en')]));
const MSG_UNIMPLEMENTED = sshPacket(Buffer.concat([Buffer.from([3]), u32(7)]));
const MSG_UNKNOWN = sshPacket(Buffer.from([150, 1, 2, 3]));
const MSG_DISCONNECT = sshPacket(Buffer.concat([Buffer.from([1]), u32(2), sshString('too many connections from your network'), sshString('')]));
const MSG_SERVICE = sshPacket(Buffer.concat([Buffer.from([5]), sshString('ssh-userauth')]));

/*
 * Raw peers (shared by all cases; they log nothing):
 *   closer      closes every connection at once
 *   http        answers like a web server
 *   sshv1       sends an SSH-1.5 identification
 *   silent      never sends anything
 *   identonly   sends an identification, then nothing
 *   garbage     an identification, then bytes that are no packet
 *   chatty      an identification, IGNORE, DEBUG, UNIMPLEMENTED, an unknown
 *               message, then a KEXINIT with only diffie-hellman-group1-sha1
 *               and 3des-cbc
 *   disconnect  an identification, then DISCONNECT (protocol error)
 *   greeting    lines of text before its identification, then a KEXINIT
 *               offering ssh-dss host keys only
 */
const RAW_PEERS = ['closer', 'http', 'sshv1', 'silent', 'identonly', 'garbage', 'chatty', 'disconnect', 'greeting'];
const rawPorts = {};
const rawServers = [];
const rawSockets = new Set();
let CLOSED_PORT = 0;

function rawPeer(sock, mode) {
  rawSockets.add(sock);
  sock.on('close', () => rawSockets.delete(sock));
  sock.on('error', noop);
  sock.on('data', noop);
  sock.setNoDelay(true);
  const ident = 'SSH-2.0-OpenSSH_8.4p1 Debian-5+deb11u3\r\n';
  switch (mode) {
    case 'closer': sock.destroy(); break;
    case 'http': sock.end('HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Length: 0\r\n\r\n'); break;
    case 'sshv1': sock.write('SSH-1.5-OpenSSH_2.9\r\n'); break;
    case 'silent': break;
    case 'identonly': sock.write(ident); break;
    case 'garbage': sock.write(ident); setTimeout(() => sock.write(Buffer.from('\xff\xff\xff\xf0hello there, this is not a packet', 'latin1')), 3); break;
    case 'chatty':
      sock.write(ident);
      setTimeout(() => sock.write(Buffer.concat([MSG_IGNORE, MSG_DEBUG, MSG_UNIMPLEMENTED, MSG_UNKNOWN,
        kexinit({ kex: 'diffie-hellman-group1-sha1', cipher: '3des-cbc', hostKey: 'ssh-rsa', mac: 'hmac-sha1' })])), 3);
      break;
    case 'disconnect': sock.write(ident); setTimeout(() => sock.end(MSG_DISCONNECT), 3); break;
    case 'greeting':
      sock.write('Unauthorized access is prohibited.\r\nAll sessions are recorded.\r\n' + ident);
      setTimeout(() => sock.write(kexinit({ hostKey: 'ssh-dss' })), 3);
      break;
    default: sock.destroy();
  }
}

function listenNet(srv) {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
  });
}

async function startRawPeers() {
  for (const mode of RAW_PEERS) {
    const srv = net.createServer((sock) => rawPeer(sock, mode));
    rawServers.push(srv);
    rawPorts[mode] = await listenNet(srv);
  }
  const tmp = net.createServer();
  CLOSED_PORT = await listenNet(tmp);
  await new Promise((r) => tmp.close(r));
}

// ---------------------------------------------------------------------------
// Algorithm lists.
const NO_GEX = (a) => !/group-exchange/.test(a);
const CATS = {
  kex: { supported: ALG.SUPPORTED_KEX.filter(NO_GEX), dflt: ALG.DEFAULT_KEX.filter(NO_GEX) },
  cipher: { supported: ALG.SUPPORTED_CIPHER, dflt: ALG.DEFAULT_CIPHER },
  hmac: { supported: ALG.SUPPORTED_MAC, dflt: ALG.DEFAULT_MAC },
  compress: { supported: ALG.SUPPORTED_COMPRESSION, dflt: ALG.DEFAULT_COMPRESSION },
};
const uniq = (a) => Array.from(new Set(a));

// Client and server algorithm options with (ok) or without (!ok) something
// in common in every category; `hostFormats` are those the server's keys give.
function drawAlgorithms(R, hostFormats, failCat) {
  const client = {};
  const server = {};
  for (const [cat, { supported, dflt }] of Object.entries(CATS)) {
    const cSpec = cat === failCat || R.chance(0.3);
    const sSpec = cat === failCat || R.chance(0.15);
    if (cat === failCat) {
      const pool = R.shuffle(supported);
      const cut = R.int(1, Math.max(1, Math.min(3, pool.length - 1)));
      client[cat] = pool.slice(0, cut);
      server[cat] = pool.slice(cut, cut + R.int(1, 3));
      continue;
    }
    const common = R.pick(sSpec && cSpec ? supported : dflt);
    if (cSpec) {
      const extra = R.sample(supported, R.int(0, 3));
      if (R.chance(0.15)) client[cat] = { prepend: common };  // the object forms of the option
      else if (R.chance(0.1) && dflt.includes(common)) client[cat] = { remove: dflt.filter((a) => a !== common).slice(0, R.int(1, 2)) };
      else client[cat] = uniq(R.shuffle([common, ...extra]));
    }
    if (sSpec) server[cat] = uniq(R.shuffle([common, ...R.sample(supported, R.int(0, 2))]));
  }
  if (failCat === 'hmac') {  // MACs are only negotiated for non-AEAD ciphers
    client.cipher = server.cipher = ['aes128-ctr'];
  }
  if (failCat === 'serverHostKey') {
    const all = ALG.SUPPORTED_SERVER_HOST_KEY.filter((f) => f !== 'ssh-dss');
    client.serverHostKey = R.sample(all.filter((f) => !hostFormats.includes(f)), R.int(1, 2));
  } else if (R.chance(0.2)) {
    client.serverHostKey = uniq([R.pick(hostFormats), ...R.sample(ALG.SUPPORTED_SERVER_HOST_KEY, R.int(0, 2))]);
  }
  if (failCat === 'gex') {
    client.kex = [R.pick(['diffie-hellman-group-exchange-sha256', 'diffie-hellman-group-exchange-sha1'])];
    server.kex = ['diffie-hellman-group-exchange-sha256', 'diffie-hellman-group-exchange-sha1', 'diffie-hellman-group14-sha1'];
  }
  return { client: Object.keys(client).length ? client : undefined, server: Object.keys(server).length ? server : undefined };
}

// ---------------------------------------------------------------------------
// The case's server.
function serverPolicy(R) {
  const keyNames = R.chance(0.5) ? ['ed25519', 'ecdsa', 'rsa'] : R.sample(['ed25519', 'ecdsa', 'rsa'], R.int(1, 2));
  return {
    keyNames,
    hostFormats: [].concat(...keyNames.map((k) => HOST_KEY_FORMATS[k])),
    banner: R.chance(0.15) ? R.pick(['Authorized use only.\n', 'Welcome to build-07\nMaintenance window: Sundays\n']) : undefined,
    greeting: R.chance(0.08) ? 'Test host ready' : undefined,
    ident: R.chance(0.3) ? R.pick(['OpenSSH_8.9p1 Ubuntu-3ubuntu0.6', 'OpenSSH_9.2p1 Debian-2', 'OpenSSH_7.4']) : undefined,
    keepalive: R.chance(0.1) ? R.pick([15, 30]) : 0,
    authDelay: R.chance(0.15) ? R.int(1, 15) : 0,
    kbdStyle: R.pick(['two', 'two', 'one', 'empty-first']),
    sessionReject: R.chance(0.05),
    ptyReject: R.chance(0.1),
    envHandler: R.chance(0.8),
    windowHandler: R.chance(0.7),
    x11: R.chance(0.6),
    agentFwd: R.chance(0.5),
    tcpip: R.pick(['accept', 'accept', 'accept', 'reject', 'none']),
    request: R.pick(['accept', 'accept', 'accept', 'reject', 'none']),
    streamlocal: R.chance(0.6),
    sftp: R.pick(['full', 'full', 'full', 'full', 'partial', 'reject', 'nolistener']),
    sftpMissing: R.sample(['SYMLINK', 'READLINK', 'SETSTAT', 'RENAME', 'MKDIR', 'FSTAT', 'REALPATH'], R.int(1, 3)),
    diskFull: R.chance(0.1),
    forwardBack: R.int(1, 2),
    rekeyAfterReady: R.chance(0.06),
    dropAfter: R.chance(0.05) ? R.int(5, 40) : 0,
    dropHard: R.chance(0.5),
    authHang: false,
    reject: null,
  };
}

// Build, start and track the case's ssh2 Server.
async function startServer(ctx, P, algorithms) {
  const cfg = {
    hostKeys: P.keyNames.map((k) => HOST_KEYS[k]),
    debug: debugFor(ctx.ck, 'server'),
  };
  if (algorithms) cfg.algorithms = algorithms;
  if (P.banner) cfg.banner = P.banner;
  if (P.greeting) cfg.greeting = P.greeting;
  if (P.ident) cfg.ident = P.ident;
  if (P.keepalive) { cfg.keepaliveInterval = P.keepalive; cfg.keepaliveCountMax = 3; }
  const listener = P.reject === 'nolistener' ? undefined : (client, info) => onConnection(ctx, P, client, info);
  const server = new Server(cfg, listener);
  server.on('error', noop);
  if (P.reject === 'maxconn') server.maxConnections = 0;
  // ssh2 makes its net.Server without options: TCP_NODELAY and socket
  // tracking (for the teardown) through its connection event
  server._srv.on('connection', (sock) => {
    sock.setNoDelay(true);
    ctx.sockets.add(sock);
    sock.on('close', () => ctx.sockets.delete(sock));
  });
  ctx.servers.push(server);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

function onConnection(ctx, P, client, info) {
  client.on('error', noop);
  ctx.serverClients.push(client);
  if (P.reject === 'end') { client.end(); return; }
  if (P.reject === 'ident' && /EvilScanner/.test(info.header.versions.software)) { client.end(); return; }
  const conn = { user: 'nobody' };  // the user the session runs as
  client.on('authentication', (actx) => { conn.user = actx.username; decideAuth(P, actx); });
  client.on('rekey', noop);
  client.on('ready', () => {
    if (P.rekeyAfterReady) setTimeout(() => { try { client.rekey(noop); } catch (e) { /* gone */ } }, 2);
    if (P.dropAfter) {
      setTimeout(() => {
        if (P.dropHard) { for (const s of ctx.sockets) s.destroy(); } else client.end();
      }, P.dropAfter);
    }
    client.on('session', (accept, reject) => {
      if (P.sessionReject) { reject(); return; }
      serveSession(ctx, P, client, conn, accept());
    });
    if (P.tcpip !== 'none') {
      client.on('tcpip', (accept, reject, info2) => {
        if (P.tcpip === 'reject' || info2.destPort === 25 || /blocked/.test(info2.destIP)) { reject(); return; }
        const st = accept();
        st.on('data', (d) => st.write(d.toString().toUpperCase()));
        st.on('end', () => st.end());
        st.on('error', noop);
      });
    }
    if (P.request !== 'none') {
      client.on('request', (accept, reject, name, info2) => serveRequest(ctx, P, client, accept, reject, name, info2));
    }
    if (P.streamlocal) {
      client.on('openssh.streamlocal', (accept, reject, info2) => {
        if (/denied/.test(info2.socketPath)) { reject(); return; }
        const st = accept();
        st.on('data', noop);
        st.on('end', () => st.end());
        st.on('error', noop);
      });
    }
  });
}

function decideAuth(P, actx) {
  if (P.authHang) return;  // never answers: the client's readyTimeout fires
  const u = USERS[actx.username];
  const left = u ? u.methods : OTHER_METHODS;
  const later = (fn) => (P.authDelay ? setTimeout(fn, P.authDelay) : fn());
  const decide = (ok, partial, methods) => later(() => {
    try { if (ok) actx.accept(); else actx.reject(methods || left, !!partial); } catch (e) { /* connection gone */ }
  });
  const allowed = (m) => u && u.methods.includes(m);
  switch (actx.method) {
    case 'none':
      return decide(!!(u && u.none));
    case 'password':
      if (!allowed('password')) return decide(false);
      if (u.change && actx.password === u.password) {
        return actx.requestChange('Password expired; choose a new one: ', (np) => decide(String(np).length >= 8));
      }
      if (u.twoFactor && actx.password === u.password) return decide(false, true, ['keyboard-interactive']);
      return decide(actx.password === u.password);
    case 'publickey': {
      const blob = actx.key && actx.key.data.toString('base64');
      const name = u && u.keys.find((k) => blobOf(k) === blob);
      if (!allowed('publickey') || !name) return decide(false);
      if (!actx.signature) return later(() => { try { actx.accept(); } catch (e) { /* gone */ } });  // PK_OK
      return decide(PUBLIC[name].verify(actx.blob, actx.signature, actx.hashAlgo) === true);
    }
    case 'hostbased': {
      const blob = actx.key && actx.key.data.toString('base64');
      const ok = allowed('hostbased') && blob === blobOf(u.hostbased) && actx.localHostname === 'workstation' &&
        actx.localUsername === actx.username && PUBLIC[u.hostbased].verify(actx.blob, actx.signature, actx.hashAlgo) === true;
      return decide(ok);
    }
    case 'keyboard-interactive': {
      if (!allowed('keyboard-interactive')) return decide(false);
      const pw = { prompt: 'Password: ', echo: false };
      const code = { prompt: 'Verification code: ', echo: true };
      const check = (answers) => {
        if (u.twoFactor) return decide(answers[0] === OTP);
        if (P.kbdStyle === 'one') return decide(answers[0] === u.password);
        return decide(answers[0] === u.password && answers[1] === OTP);
      };
      const ask = () => {
        if (u.twoFactor) actx.prompt([code], 'Second factor', 'Enter the code from your token', check);
        else if (P.kbdStyle === 'one') actx.prompt([pw], 'Login', '', check);
        else actx.prompt([pw, code], 'Two-step login', 'Answer both prompts', check);
      };
      if (P.kbdStyle === 'empty-first') return actx.prompt([], 'Notice', 'Press enter to continue', ask);
      return ask();
    }
    default:
      return decide(false);
  }
}

function serveRequest(ctx, P, client, accept, reject, name, info) {
  if (!accept) return;  // no reply wanted
  if (P.request === 'reject') { reject(); return; }
  if (name === 'tcpip-forward') {
    if (info.bindPort > 0 && info.bindPort < 1024) { reject(); return; }
    const port = info.bindPort || 40022;
    accept(port);
    // connections "arriving" on the forwarded port, back to the client
    for (let k = 0; k < P.forwardBack; k++) {
      setTimeout(() => {
        try {
          client.forwardOut(info.bindAddr, port, '127.0.0.1', 51000 + k, (err, ch) => {
            if (err) return;
            ch.on('data', noop);
            ch.on('error', noop);
            ch.end('hello from the far side\n');
          });
        } catch (e) { /* gone */ }
      }, 1 + k);
    }
    return;
  }
  if (name === 'streamlocal-forward@openssh.com') {
    if (/denied/.test(info.socketPath)) { reject(); return; }
    accept();
    // a connection "arriving" on the forwarded socket, back to the client
    setTimeout(() => {
      try {
        client.openssh_forwardOutStreamLocal(info.socketPath, (err, ch) => {
          if (err) return;
          ch.on('data', noop);
          ch.on('error', noop);
          ch.end('hello over the socket\n');
        });
      } catch (e) { /* gone */ }
    }, 1);
    return;
  }
  accept();
}

// ---------------------------------------------------------------------------
// Sessions: exec, shell, subsystems, sftp.
function makeTree(user) {
  const home = `/home/${user}`;
  const tree = new Map();
  const dir = (p) => tree.set(p, { type: 'dir', mode: 0o40755 });
  const file = (p, data, mode) => tree.set(p, { type: 'file', data: Buffer.from(data), mode: mode || 0o100644 });
  for (const d of ['/', '/home', home, '/tmp', '/etc', `${home}/projects`]) dir(d);
  file(`${home}/notes.txt`, 'remember the milk\n'.repeat(20));
  file(`${home}/data.bin`, DATA_BIN);
  file(`${home}/projects/todo.md`, '# todo\n- ship it\n');
  file('/etc/motd', 'Welcome to build-07\n');
  file('/etc/shadow', 'root:*:19000:0:99999:7:::\n', 0o100600);
  tree.set(`${home}/latest`, { type: 'link', target: 'notes.txt', mode: 0o120777 });
  return { tree, home };
}

// Output of the commands the server knows; null = unknown (rejected).
function commandResult(cmd, user, env, pty) {
  const c = cmd.trim();
  if (c === 'uptime') return { out: ' 10:02:11 up 41 days,  3:07,  1 user,  load average: 0.08, 0.03, 0.01\n', code: 0 };
  if (c === 'whoami') return { out: `${user}\n`, code: 0 };
  if (c === 'ls /var/log') return { out: 'auth.log\nsyslog\nkern.log\ndpkg.log\n', code: 0 };
  if (c === 'ls /nonexistent') return { err: "ls: cannot access '/nonexistent': No such file or directory\n", code: 2 };
  if (c === 'false') return { code: 1 };
  if (c === 'true') return { code: 0 };
  if (c === 'env') return { out: Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join('') || '\n', code: 0 };
  if (c === 'tty') return pty ? { out: '/dev/pts/3\n', code: 0 } : { out: 'not a tty\n', code: 1 };
  if (c === 'make') return { out: 'cc -c main.c\n', err: 'main.c:12:5: warning: unused variable ‘x’\n'.repeat(3), code: 2 };
  if (c === 'segfault') return { signal: 'SEGV', dump: true, desc: 'Segmentation fault' };
  if (c === 'noexit') return { out: 'bye\n' };
  if (/^head -c \d+ \/dev\/zero$/.test(c)) return { out: Buffer.alloc(Math.min(parseInt(c.split(' ')[2], 10), 2500000), 0x30), code: 0 };
  if (/^cat$|^sleep \d+$|^rekey$|^xclock$|^forward-back$|^logout$|^reboot$/.test(c)) return { special: c.split(' ')[0] };
  return null;
}

function finishChannel(ch, res) {
  try {
    if (res.signal) ch.exit(res.signal, !!res.dump, res.desc);
    else if (res.code !== undefined) ch.exit(res.code);
    ch.end();
  } catch (e) { /* gone */ }
}

function runCommand(ctx, P, client, ch, cmd, state) {
  const res = commandResult(cmd, state.user, state.env, state.pty);
  if (!res) return false;
  ch.on('error', noop);
  if (!res.special) {
    if (res.err) ch.stderr.write(res.err);
    if (res.out) ch.write(res.out);
    finishChannel(ch, res);
    return true;
  }
  switch (res.special) {
    case 'cat':  // echo stdin until EOF
      ch.on('data', (d) => ch.write(d));
      ch.on('end', () => finishChannel(ch, { code: 0 }));
      break;
    case 'sleep': {  // until a signal or 150 ms
      const t = setTimeout(() => finishChannel(ch, { code: 0 }), 150);
      state.onSignal = (name) => { clearTimeout(t); finishChannel(ch, { signal: name, desc: 'interrupted' }); };
      ch.on('close', () => clearTimeout(t));
      break;
    }
    case 'rekey':
      try { client.rekey(() => finishChannel(ch, { out: 'rekeyed\n', code: 0 })); } catch (e) { finishChannel(ch, { code: 1 }); }
      ch.write('rekeying\n');
      break;
    case 'xclock':  // opens an X11 channel back to the client
      try {
        client.x11('127.0.0.1', 6010, (err, x) => {
          if (!err) { x.on('data', noop); x.on('error', noop); x.end('\x6c\x00\x0b\x00'); }
          finishChannel(ch, { code: err ? 1 : 0 });
        });
      } catch (e) { finishChannel(ch, { code: 1 }); }
      break;
    case 'forward-back':  // a forwarded-tcpip channel the client never asked for
      try {
        client.forwardOut('127.0.0.1', 8080, '127.0.0.1', 50123, (err, x) => {
          if (!err) { x.on('error', noop); x.end(); }
          finishChannel(ch, { code: err ? 1 : 0 });
        });
      } catch (e) { finishChannel(ch, { code: 1 }); }
      break;
    case 'logout':
      ch.write('Connection to host closed.\n');
      setTimeout(() => { try { client.end(); } catch (e) { /* gone */ } }, 1);
      break;
    case 'reboot':
      ch.write('The system is going down for reboot NOW!\n');
      setTimeout(() => { for (const s of ctx.sockets) s.destroy(); }, 1);
      break;
    default:
      finishChannel(ch, { code: 127 });
  }
  return true;
}

function serveSession(ctx, P, client, conn, session) {
  const state = { user: conn.user, env: {}, pty: null, onSignal: null };
  session.on('close', noop);
  session.on('pty', (accept, reject, info) => {
    if (P.ptyReject) { if (reject) reject(); return; }
    state.pty = info;
    if (accept) accept();
  });
  if (P.windowHandler) session.on('window-change', (accept) => { if (accept) accept(); });
  if (P.envHandler) {
    session.on('env', (accept, reject, info) => {
      if (/^LD_|^PATH$/.test(info.key)) { if (reject) reject(); return; }
      state.env[info.key] = info.val;
      if (accept) accept();
    });
  }
  session.on('x11', (accept, reject) => { if (P.x11) { if (accept) accept(); } else if (reject) reject(); });
  session.on('auth-agent', (accept, reject) => { if (P.agentFwd) { if (accept) accept(); } else if (reject) reject(); });
  session.on('signal', (accept, reject, info) => {
    if (accept) accept();
    if (state.onSignal) state.onSignal(info.name);
  });
  session.on('exec', (accept, reject, info) => {
    if (!commandResult(info.command, state.user, state.env, state.pty)) { reject(); return; }
    runCommand(ctx, P, client, accept(), info.command, state);
  });
  session.on('shell', (accept, reject) => {
    if (!state.pty && P.ptyReject) { reject(); return; }
    const sh = accept();
    sh.on('error', noop);
    let buf = '';
    sh.write(P.banner ? 'Last login: Mon Mar  4 09:12:44 2024\r\n$ ' : '$ ');
    state.onSignal = (name) => finishChannel(sh, { signal: name, desc: 'killed' });
    sh.on('data', (d) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === 'exit') { finishChannel(sh, { code: 0 }); return; }
        const res = commandResult(line, state.user, state.env, state.pty);
        if (!res) sh.write(`sh: 1: ${line}: not found\r\n$ `);
        else sh.write(`${res.out ? String(res.out).slice(0, 200) : ''}${res.err || ''}$ `);
      }
    });
    sh.on('end', () => finishChannel(sh, { code: 0 }));
  });
  if (P.sftp !== 'nolistener') {
    session.on('sftp', (accept, reject) => {
      if (P.sftp === 'reject') { reject(); return; }
      serveSftp(P, accept(), makeTree(state.user));
    });
  }
  session.on('subsystem', (accept, reject, info) => {
    if (info.name !== 'echo') { reject(); return; }
    const st = accept();
    st.on('error', noop);
    st.on('data', (d) => st.write(d));
    st.on('end', () => st.end());
  });
}

function serveSftp(P, sftp, vfs) {
  const { tree, home } = vfs;
  const handles = new Map();
  let nextHandle = 1;
  const norm = (p) => path.posix.resolve(home, String(p || '.'));
  const newHandle = (obj) => {
    const h = Buffer.alloc(4);
    h.writeUInt32BE(nextHandle++);
    handles.set(h.toString('hex'), obj);
    return h;
  };
  const handleOf = (h) => handles.get(h.toString('hex'));
  const attrsOf = (e) => ({ mode: e.mode, uid: 1000, gid: 1000, size: e.type === 'file' ? e.data.length : 4096,
    atime: 1709543564, mtime: 1709543564 });
  const denied = (p) => p === '/etc/shadow' || p.startsWith('/root');
  const status = (id, code, msg) => sftp.status(id, code, msg);
  const on = (name, fn) => { if (P.sftp !== 'partial' || !P.sftpMissing.includes(name)) sftp.on(name, fn); };
  const children = (dir) => Array.from(tree.keys()).filter((k) => k !== dir && path.posix.dirname(k) === dir);
  sftp.on('error', noop);

  on('OPEN', (id, filename, flags) => {
    const p = norm(filename);
    if (denied(p)) return status(id, STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
    let e = tree.get(p);
    if (!e) {
      if (!(flags & OPEN_MODE.CREAT)) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      const parent = tree.get(path.posix.dirname(p));
      if (!parent || parent.type !== 'dir') return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such directory');
      e = { type: 'file', data: Buffer.alloc(0), mode: 0o100644 };
      tree.set(p, e);
    } else if (e.type === 'dir') {
      return status(id, STATUS_CODE.FAILURE, 'Is a directory');
    } else if (e.type === 'link') {
      e = tree.get(norm(path.posix.join(path.posix.dirname(p), e.target)));
      if (!e) return status(id, STATUS_CODE.NO_SUCH_FILE, 'Dangling link');
    }
    if (flags & OPEN_MODE.TRUNC) e.data = Buffer.alloc(0);
    return sftp.handle(id, newHandle({ kind: 'file', path: p, entry: e }));
  });
  on('READ', (id, h, offset, len) => {
    const o = handleOf(h);
    if (!o || o.kind !== 'file') return status(id, STATUS_CODE.FAILURE, 'Bad handle');
    if (offset >= o.entry.data.length) return status(id, STATUS_CODE.EOF);
    return sftp.data(id, o.entry.data.subarray(offset, offset + len));
  });
  on('WRITE', (id, h, offset, data) => {
    const o = handleOf(h);
    if (!o || o.kind !== 'file') return status(id, STATUS_CODE.FAILURE, 'Bad handle');
    if (P.diskFull && offset + data.length > 16384) return status(id, STATUS_CODE.FAILURE, 'No space left on device');
    const end = offset + data.length;
    if (end > o.entry.data.length) {
      const grown = Buffer.alloc(end);
      o.entry.data.copy(grown);
      o.entry.data = grown;
    }
    data.copy(o.entry.data, offset);
    return status(id, STATUS_CODE.OK);
  });
  on('CLOSE', (id, h) => {
    if (!handles.delete(h.toString('hex'))) return status(id, STATUS_CODE.FAILURE, 'Bad handle');
    return status(id, STATUS_CODE.OK);
  });
  on('FSTAT', (id, h) => {
    const o = handleOf(h);
    if (!o) return status(id, STATUS_CODE.FAILURE, 'Bad handle');
    return sftp.attrs(id, attrsOf(o.entry || tree.get(o.path)));
  });
  const stat = (follow) => (id, p0) => {
    const p = norm(p0);
    let e = tree.get(p);
    if (e && follow && e.type === 'link') e = tree.get(norm(path.posix.join(path.posix.dirname(p), e.target)));
    if (!e) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
    return sftp.attrs(id, attrsOf(e));
  };
  on('STAT', stat(true));
  on('LSTAT', stat(false));
  on('OPENDIR', (id, p0) => {
    const p = norm(p0);
    const e = tree.get(p);
    if (!e) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such directory');
    if (e.type !== 'dir') return status(id, STATUS_CODE.FAILURE, 'Not a directory');
    if (p === '/root') return status(id, STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
    return sftp.handle(id, newHandle({ kind: 'dir', path: p, sent: false }));
  });
  on('READDIR', (id, h) => {
    const o = handleOf(h);
    if (!o || o.kind !== 'dir') return status(id, STATUS_CODE.FAILURE, 'Bad handle');
    if (o.sent) return status(id, STATUS_CODE.EOF);
    o.sent = true;
    return sftp.name(id, children(o.path).map((k) => {
      const base = path.posix.basename(k);
      const a = attrsOf(tree.get(k));
      return { filename: base, longname: `-rw-r--r--    1 1000     1000     ${String(a.size).padStart(8)} Mar  4 09:12 ${base}`, attrs: a };
    }));
  });
  on('REALPATH', (id, p0) => sftp.name(id, [{ filename: norm(p0), longname: '', attrs: {} }]));
  on('MKDIR', (id, p0) => {
    const p = norm(p0);
    if (tree.has(p)) return status(id, STATUS_CODE.FAILURE, 'File exists');
    if (!tree.has(path.posix.dirname(p))) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such directory');
    tree.set(p, { type: 'dir', mode: 0o40755 });
    return status(id, STATUS_CODE.OK);
  });
  on('RMDIR', (id, p0) => {
    const p = norm(p0);
    const e = tree.get(p);
    if (!e || e.type !== 'dir') return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such directory');
    if (children(p).length) return status(id, STATUS_CODE.FAILURE, 'Directory not empty');
    tree.delete(p);
    return status(id, STATUS_CODE.OK);
  });
  on('REMOVE', (id, p0) => {
    const p = norm(p0);
    if (denied(p) || p.startsWith('/etc')) return status(id, STATUS_CODE.PERMISSION_DENIED, 'Permission denied');
    const e = tree.get(p);
    if (!e) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (e.type === 'dir') return status(id, STATUS_CODE.FAILURE, 'Is a directory');
    tree.delete(p);
    return status(id, STATUS_CODE.OK);
  });
  on('RENAME', (id, a0, b0) => {
    const a = norm(a0);
    const b = norm(b0);
    if (!tree.has(a)) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (tree.has(b)) return status(id, STATUS_CODE.FAILURE, 'Target exists');
    tree.set(b, tree.get(a));
    tree.delete(a);
    return status(id, STATUS_CODE.OK);
  });
  on('READLINK', (id, p0) => {
    const e = tree.get(norm(p0));
    if (!e) return status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
    if (e.type !== 'link') return status(id, STATUS_CODE.FAILURE, 'Not a link');
    return sftp.name(id, [{ filename: e.target, longname: '', attrs: {} }]);
  });
  on('SYMLINK', (id, target, link) => {
    const p = norm(link);
    if (tree.has(p)) return status(id, STATUS_CODE.FAILURE, 'File exists');
    tree.set(p, { type: 'link', target: String(target), mode: 0o120777 });
    return status(id, STATUS_CODE.OK);
  });
  const setstat = (id, p) => (p.startsWith('/etc') ? status(id, STATUS_CODE.PERMISSION_DENIED, 'Operation not permitted')
    : tree.has(p) ? status(id, STATUS_CODE.OK) : status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file'));
  on('SETSTAT', (id, p0) => setstat(id, norm(p0)));
  on('FSETSTAT', (id, h) => {
    const o = handleOf(h);
    return o ? setstat(id, o.path) : status(id, STATUS_CODE.FAILURE, 'Bad handle');
  });
}

// ---------------------------------------------------------------------------
// The client: configuration, authentication, operations.
const USER_PICKS = ['alice', 'alice', 'alice', 'alice', 'bob', 'bob', 'bob', 'bob', 'carol', 'carol', 'dave', 'erin', 'erin',
  'frank', 'frank', 'guest', 'guest', 'mallory', 'root'];

function authPlan(R) {
  const user = R.pick(USER_PICKS);
  const u = USERS[user];
  const p = { username: user };
  const good = R.chance(0.88);
  const pw = u && u.password ? u.password : 'letmein';
  if (user === 'guest') {
    if (R.chance(0.3)) p.password = 'guest';
  } else if (user === 'carol' || user === 'erin') {
    p.tryKeyboard = true;
    p.kbdAnswers = good ? [user === 'erin' ? OTP : pw, OTP] : ['nope', '000000'];
    if (user === 'erin' || R.chance(0.5)) p.password = user === 'erin' ? (good ? pw : 'wrong') : pw;
  } else if (user === 'frank') {
    if (R.chance(0.75)) {
      p.privateKey = USER_KEYS.frank.private;
      p.localHostname = good ? 'workstation' : 'laptop';
      p.localUsername = 'frank';
    } else {
      p.password = good ? pw : 'wrong';
    }
  } else {
    const way = R.pick(user === 'bob' ? ['password', 'key', 'key', 'agent', 'keyboard'] : ['password', 'password', 'key', 'key', 'agent']);
    if (way === 'password' || user === 'dave') {
      p.password = good ? pw : R.pick(['wrong', 'Wonderland', '']);
    } else if (way === 'key') {
      const mine = user === 'alice' ? R.pick(['alice', 'alice', 'aliceLocked']) : user === 'bob' ? R.pick(['bob', 'bobEc']) : 'stranger';
      // a wrong RSA key makes ssh2 retry it with each RSA signature algorithm
      const k = good ? mine : R.pick(['stranger', 'stranger', user === 'bob' ? 'alice' : 'bob']);
      p.privateKey = USER_KEYS[k].private;
      if (k === 'aliceLocked') p.passphrase = PASSPHRASE;
      if (R.chance(0.3)) p.password = R.chance(0.5) ? pw : 'wrong';
    } else if (way === 'agent') {
      const held = user === 'alice' || user === 'bob' ? USERS[user].keys.slice(0, R.int(1, 2)) : [];
      p.agent = new MemAgent(R.shuffle(good ? ['stranger', ...held] : ['stranger']), R.chance(0.1));
    } else {
      p.tryKeyboard = true;
      p.kbdAnswers = good ? [pw, OTP] : ['nope', '111111'];
      if (R.chance(0.4)) p.password = 'wrong';
    }
    if (user === 'dave') p.newPassword = R.chance(0.8) ? 'n3w-and-long-enough' : 'short';
  }
  // the order of attempts: ssh2's default, a list, or a function yielding objects
  const style = R.pick(['default', 'default', 'default', 'list', 'function']);
  if (style === 'list') {
    const methods = ['none', 'password', 'publickey', 'agent', 'keyboard-interactive', 'hostbased'];
    // the methods the plan has credentials for, plus others, in a random order
    const own = methods.filter((m) => (m === 'password' && p.password !== undefined) || (m === 'publickey' && p.privateKey) ||
      (m === 'agent' && p.agent) || (m === 'keyboard-interactive' && p.tryKeyboard) || (m === 'hostbased' && p.localHostname) ||
      (m === 'none' && user === 'guest'));
    p.authHandler = R.shuffle(uniq(own.concat(R.sample(methods, R.int(1, 4)))));
    if (R.chance(0.2)) p.authHandler.splice(R.int(0, p.authHandler.length), 0, 'gssapi-with-mic');
  } else if (style === 'function') {
    p.authFunction = R.shuffle([
      { type: 'none', username: user },
      p.password !== undefined ? { type: 'password', username: user, password: p.password } : { type: 'password', username: user },
      p.privateKey ? { type: 'publickey', username: user, key: p.privateKey, passphrase: p.passphrase } : null,
      R.chance(0.3) ? { type: 'publickey', username: user, key: USER_KEYS.aliceLocked.private, passphrase: 'wrong' } : null,
      R.chance(0.2) ? { type: 'publickey', username: user, key: USER_KEYS.stranger.public } : null,
      p.tryKeyboard ? { type: 'keyboard-interactive', username: user, prompt: null } : null,
      R.chance(0.2) ? { type: 'agent', username: user, agent: 42 } : null,
      R.chance(0.2) ? { type: 'hostbased', username: user, key: USER_KEYS.frank.private } : null,
      R.chance(0.2) ? 'kerberos' : null,
      R.chance(0.15) ? { type: 'password', username: 7 } : null,
    ].filter((x) => x !== null));
  }
  return p;
}

function clientConfig(ctx, R, port, plan, algorithms) {
  ctx.user = plan.username;
  const cfg = {
    host: '127.0.0.1',
    port,
    username: plan.username,
    debug: debugFor(ctx.ck, 'client'),
    readyTimeout: 2500,
  };
  for (const k of ['password', 'privateKey', 'passphrase', 'tryKeyboard', 'agent', 'localHostname', 'localUsername']) {
    if (plan[k] !== undefined) cfg[k] = plan[k];
  }
  if (plan.authHandler) cfg.authHandler = plan.authHandler;
  if (plan.authFunction) {
    const queue = plan.authFunction.slice();
    // a keyboard-interactive attempt needs a prompt function of the client
    cfg.authHandler = () => {
      const a = queue.shift();
      if (a === undefined) return false;
      if (a && a.type === 'keyboard-interactive') {
        return Object.assign({}, a, { prompt: (name, instr, lang, prompts, finish) => finish(prompts.map((q, i) => plan.kbdAnswers[i] || '')) });
      }
      return a;
    };
  }
  if (algorithms) cfg.algorithms = algorithms;
  if (R.chance(0.15)) { cfg.keepaliveInterval = R.pick([10, 25]); cfg.keepaliveCountMax = R.int(1, 3); }
  if (R.chance(0.12)) cfg.ident = R.pick(['PuTTY_Release_0.78', 'OpenSSH_9.6', 'libssh2_1.10.0']);
  if (R.chance(0.15)) cfg.strictVendor = false;
  const hv = R.chance(0.65) ? 'none' : R.pick(['accept', 'accept', 'accept', 'hash', 'hash', 'async', 'async', 'async', 'deny', 'asyncdeny']);
  if (hv === 'accept') cfg.hostVerifier = () => true;
  else if (hv === 'hash') { cfg.hostHash = R.pick(['sha256', 'md5']); cfg.hostVerifier = (h) => typeof h === 'string'; }
  else if (hv === 'async') cfg.hostVerifier = (key, verify) => { setTimeout(() => verify(true), 1); };
  else if (hv === 'deny') cfg.hostVerifier = () => false;
  else if (hv === 'asyncdeny') cfg.hostVerifier = (key, verify) => { setTimeout(() => verify(false), 1); };
  // an agent with a key nobody accepts: one more method tried first, and agent forwarding possible
  if (!cfg.agent && R.chance(0.1)) cfg.agent = new MemAgent(['stranger'], false);
  return cfg;
}

// Connect, resolve when ready (true) or gone (false).
function connect(ctx, cfg, plan) {
  const c = new Client();
  ctx.clients.push(c);
  const st = { c, ready: false };
  c.on('error', (e) => { ctx.errors.push(e.message); });
  c.on('banner', noop);
  c.on('greeting', noop);
  c.on('handshake', noop);
  c.on('hostkeys', noop);
  c.on('keyboard-interactive', (name, instr, lang, prompts, finish) => {
    finish(prompts.map((q, i) => ((plan && plan.kbdAnswers) || [])[i] || ''));
  });
  c.on('change password', (prompt, done) => done((plan && plan.newPassword) || 'n3w-and-long-enough'));
  c.on('tcp connection', (info, accept, reject) => {
    if (info.srcPort % 2) { reject(); return; }
    const s = accept();
    s.on('data', noop);
    s.on('error', noop);
    s.on('end', () => s.end('thanks\n'));
  });
  c.on('unix connection', (info, accept) => { const s = accept(); s.on('error', noop); s.end(); });
  c.on('x11', (info, accept, reject) => {
    if (ctx.x11Reject) { reject(); return; }
    const s = accept();
    s.on('data', noop);
    s.on('error', noop);
    s.end();
  });
  st.closed = new Promise((r) => c.once('close', r));
  st.readyP = new Promise((r) => {
    c.once('ready', () => { st.ready = true; r(true); });
    c.once('close', () => r(false));
  });
  try {
    c.connect(cfg);
  } catch (e) {
    st.readyP = Promise.resolve(false);
    st.closed = Promise.resolve();
    return st;
  }
  c.setNoDelay(true);  // speed only, as on the server side
  return st;
}

const EXEC_CMDS = ['uptime', 'uptime', 'whoami', 'ls /var/log', 'ls /nonexistent', 'false', 'true', 'env', 'tty', 'make',
  'segfault', 'noexit', 'cat', 'cat', 'sleep 5', 'head -c 200000 /dev/zero', 'head -c 2000 /dev/zero', 'frobnicate --all',
  'rekey', 'xclock', 'forward-back', 'logout', 'reboot', 'uptime', 'whoami', 'ls /var/log', 'true', 'env', 'cat', 'make',
  'head -c 2200000 /dev/zero'];  // the last one outgrows the 2 MB window: window adjusts
const OPS = ['exec', 'shell', 'sftp', 'forwardOut', 'forwardIn', 'rekey', 'idle', 'subsys', 'parallel', 'x11', 'agentfwd',
  'nomore', 'streamlocal'];
const OPS_W = [30, 9, 14, 6, 5, 4, 3, 3, 4, 3, 2, 1.5, 2];
function pickOp(R) {
  let x = R.rand() * OPS_W.reduce((a, b) => a + b, 0);
  for (let k = 0; k < OPS.length; k++) { x -= OPS_W[k]; if (x < 0) return OPS[k]; }
  return 'exec';
}

function execPlan(R) {
  const cmd = R.pick(EXEC_CMDS);
  const o = { op: 'exec', cmd, opts: {} };
  if (R.chance(0.25)) o.opts.env = R.pick([{ LANG: 'C.UTF-8' }, { LANG: 'en_US.UTF-8', TZ: 'UTC' }, { LD_PRELOAD: '/tmp/x.so' }, { PATH: '/bin' }]);
  if (R.chance(0.15) || cmd === 'tty') o.opts.pty = R.chance(0.7) ? true : { rows: 40, cols: 120, term: 'xterm-256color' };
  if (cmd === 'cat') o.stdin = R.pick(['hello\n', 'line one\nline two\n', 'x'.repeat(R.int(100, 70000))]);
  if (cmd === 'sleep 5') o.signal = R.chance(0.7) ? R.pick(['INT', 'TERM', 'KILL', 'USR1']) : null;
  if (R.chance(0.05)) o.closeEarly = true;
  return o;
}

function sftpPlan(R) {
  const files = ['notes.txt', 'data.bin', 'latest', '/etc/motd', '/etc/shadow', 'missing.txt', 'projects/todo.md'];
  const dirs = ['.', '/tmp', 'projects', '/etc', '/nonexistent', '/root'];
  const ops = [];
  const n = R.int(2, 8);
  for (let k = 0; k < n; k++) {
    const op = R.pick(['readdir', 'readdir', 'stat', 'stat', 'lstat', 'readFile', 'readFile', 'writeFile', 'writeFile', 'mkdir',
      'rmdir', 'unlink', 'rename', 'realpath', 'readlink', 'symlink', 'chmod', 'exists', 'openRead', 'fastGet', 'fastPut',
      'statvfs', 'badHandle', 'futimes']);
    ops.push({ op, file: R.pick(files), dir: R.pick(dirs), n: R.int(1, 99), size: R.pick([10, 3000, 40000]) });
  }
  return { op: 'sftp', ops, end: R.pick(['end', 'end', 'leave']) };
}

function planOps(R) {
  const ops = [];
  const n = R.int(1, 5);
  for (let k = 0; k < n; k++) {
    const op = pickOp(R);
    switch (op) {
      case 'exec': ops.push(execPlan(R)); break;
      case 'shell':
        ops.push({ op, pty: R.chance(0.85) ? { rows: R.int(20, 60), cols: R.pick([80, 132, 200]), term: R.pick(['xterm', 'vt100']) } : false,
          env: R.chance(0.3) ? { EDITOR: 'vi' } : undefined,
          lines: R.sample(['uptime', 'whoami', 'ls /var/log', 'make', 'vim', 'env'], R.int(1, 3)),
          resize: R.chance(0.5), signal: R.chance(0.15) ? 'HUP' : null, exit: R.chance(0.85) });
        break;
      case 'sftp': ops.push(sftpPlan(R)); break;
      case 'forwardOut':
        ops.push({ op, dst: R.pick(['127.0.0.1', '127.0.0.1', 'localhost', 'blocked.example']), port: R.pick([80, 5432, 25, 6379]) });
        break;
      case 'forwardIn': ops.push({ op, port: R.pick([0, 0, 8022, 80]), unforward: R.chance(0.7) }); break;
      case 'subsys': ops.push({ op, name: R.pick(['echo', 'echo', 'netconf', 'sftp']) }); break;
      case 'parallel': ops.push({ op, execs: [execPlan(R), execPlan(R), execPlan(R)].slice(0, R.int(2, 3)) }); break;
      case 'x11': ops.push({ op, reject: R.chance(0.3) }); break;
      case 'streamlocal':
        ops.push({ op, path: R.pick(['/tmp/app.sock', '/run/denied.sock']), out: R.chance(0.5) });
        break;
      case 'idle': ops.push({ op, ms: R.pick([20, 40, 70]) }); break;
      default: ops.push({ op });
    }
  }
  return ops;
}

function execOp(c, o) {
  return within(700, (done) => {
    c.exec(o.cmd, o.opts, (err, st) => {
      if (err) return done(err);
      st.on('data', noop);
      st.stderr.on('data', noop);
      st.on('exit', noop);
      st.on('error', noop);
      st.on('close', () => done());
      if (o.stdin !== undefined) { st.write(o.stdin); st.end(); }
      if (o.signal) setTimeout(() => { try { st.signal(o.signal); } catch (e) { /* closed */ } }, 5);
      if (o.closeEarly) setTimeout(() => st.close(), 1);
      return undefined;
    });
  });
}

async function sftpOp(c, o) {
  let sftp = null;
  const err = await within(500, (done) => c.sftp((e, s) => { sftp = s; done(e); }));
  if (!sftp) return;
  sftp.on('error', noop);
  const call = (fn) => within(400, (done) => fn((e) => done(e)));
  for (const s of o.ops) {
    if (err) break;
    const local = path.join(TMP, `get-${s.n}.bin`);
    switch (s.op) {
      case 'readdir': await call((cb) => sftp.readdir(s.dir, cb)); break;
      case 'stat': await call((cb) => sftp.stat(s.file, cb)); break;
      case 'lstat': await call((cb) => sftp.lstat(s.file, cb)); break;
      case 'readFile': await call((cb) => sftp.readFile(s.file, cb)); break;
      case 'writeFile': await call((cb) => sftp.writeFile(remotePath(s, 'upload'), Buffer.alloc(s.size, 0x61), cb)); break;
      case 'mkdir': await call((cb) => sftp.mkdir(s.n % 3 ? `build-${s.n}` : 'projects', cb)); break;
      case 'rmdir': await call((cb) => sftp.rmdir(s.dir, cb)); break;
      case 'unlink': await call((cb) => sftp.unlink(s.file, cb)); break;
      case 'rename': await call((cb) => sftp.rename(s.file, `renamed-${s.n}.txt`, cb)); break;
      case 'realpath': await call((cb) => sftp.realpath(s.dir, cb)); break;
      case 'readlink': await call((cb) => sftp.readlink(s.file, cb)); break;
      case 'symlink': await call((cb) => sftp.symlink('notes.txt', `link-${s.n}`, cb)); break;
      case 'chmod': await call((cb) => sftp.chmod(s.file, 0o600, cb)); break;
      case 'exists': await within(400, (done) => sftp.exists(s.file, () => done())); break;
      case 'openRead': {
        let h = null;
        await call((cb) => sftp.open(s.file, 'r', (e, hh) => { h = hh; cb(e); }));
        if (!h) break;
        await call((cb) => sftp.fstat(h, cb));
        await call((cb) => sftp.read(h, Buffer.alloc(4096), 0, 4096, s.n * 10, cb));
        await call((cb) => sftp.close(h, cb));
        break;
      }
      case 'fastGet':
        await within(600, (done) => sftp.fastGet(s.file, local, { concurrency: 4, chunkSize: 8192 }, (e) => done(e)));
        break;
      case 'fastPut':
        await within(600, (done) => sftp.fastPut(LOCAL_SRC, remotePath(s, 'put'), { concurrency: 4, chunkSize: 8192 }, (e) => done(e)));
        break;
      case 'statvfs': await call((cb) => sftp.ext_openssh_statvfs('/', cb)); break;
      case 'futimes': {
        let h = null;
        await call((cb) => sftp.open(s.file, 'r+', (e, hh) => { h = hh; cb(e); }));
        if (!h) break;
        await call((cb) => sftp.futimes(h, 1700000000, 1700000000, cb));
        await call((cb) => sftp.close(h, cb));
        break;
      }
      case 'badHandle': {  // a handle closed twice: the second close fails
        let h = null;
        await call((cb) => sftp.open('notes.txt', 'r', (e, hh) => { h = hh; cb(e); }));
        if (!h) break;
        await call((cb) => sftp.close(h, cb));
        await call((cb) => sftp.close(h, cb));
        break;
      }
      default: break;
    }
  }
  if (o.end === 'end') await within(300, (done) => { sftp.once('close', () => done()); sftp.end(); });
}

// a writable remote path: home, or /etc (denied), or a missing directory
function remotePath(s, stem) {
  return s.n % 7 === 0 ? `/etc/${stem}-${s.n}` : s.n % 11 === 0 ? `/nonexistent/${stem}-${s.n}` : `${stem}-${s.n}.bin`;
}

async function shellOp(c, o) {
  await within(700, (done) => {
    const opts = o.env ? { env: o.env } : undefined;
    const cb = (err, st) => {
      if (err) return done(err);
      st.on('data', noop);
      st.stderr.on('data', noop);
      st.on('error', noop);
      st.on('close', () => done());
      let t = 1;
      for (const line of o.lines) {
        setTimeout(() => { try { st.write(`${line}\n`); } catch (e) { /* closed */ } }, t);
        t += 2;
      }
      if (o.resize) setTimeout(() => { try { st.setWindow(50, 160, 0, 0); } catch (e) { /* closed */ } }, t++);
      if (o.signal) setTimeout(() => { try { st.signal(o.signal); } catch (e) { /* closed */ } }, t++);
      setTimeout(() => { try { if (o.exit) st.write('exit\n'); else st.end(); } catch (e) { /* closed */ } }, t + 2);
      return undefined;
    };
    if (opts) c.shell(o.pty, opts, cb); else c.shell(o.pty, cb);
  });
}

// The callback of a channel opened to send one line: the channel's data is
// drained, and done is called when it closes (or with the error).
function sendAndClose(done, text) {
  return (err, s) => {
    if (err) return done(err);
    s.on('data', noop);
    s.on('error', noop);
    s.on('close', () => done());
    s.end(text);
    return undefined;
  };
}

async function clientOp(ctx, st, o) {
  const c = st.c;
  switch (o.op) {
    case 'exec': return execOp(c, o);
    case 'shell': return shellOp(c, o);
    case 'sftp': return sftpOp(c, o);
    case 'parallel': return Promise.all(o.execs.map((e) => execOp(c, e)));
    case 'forwardOut':
      return within(400, (done) => c.forwardOut('127.0.0.1', 50000 + (o.port % 1000), o.dst, o.port,
        sendAndClose(done, 'PING\n')));
    case 'forwardIn': {
      let bound = null;
      await within(300, (done) => c.forwardIn('127.0.0.1', o.port, (err, port) => { if (!err) bound = port || o.port; done(err); }));
      if (bound === null) return undefined;
      await sleep(15);  // the server's connections back arrive meanwhile
      if (o.unforward) await within(300, (done) => c.unforwardIn('127.0.0.1', bound, done));
      return undefined;
    }
    case 'rekey': return within(400, (done) => c.rekey(done));
    case 'idle': return sleep(o.ms);
    case 'subsys':
      return within(300, (done) => c.subsys(o.name, sendAndClose(done, 'ping\n')));
    case 'x11':
      ctx.x11Reject = o.reject;
      return execOp(c, { cmd: 'xclock', opts: { x11: x11Opts(o) } });
    case 'agentfwd':
      return execOp(c, { cmd: 'whoami', opts: { agentForward: true } });
    case 'nomore':
      await within(300, (done) => c.openssh_noMoreSessions(done));
      return execOp(c, { cmd: 'uptime', opts: {} });  // the server now refuses sessions
    case 'streamlocal':
      if (o.out) {
        return within(300, (done) => c.openssh_forwardOutStreamLocal(o.path, (err, s) => {
          if (err) return done(err);
          s.on('error', noop);
          s.on('close', () => done());
          s.end('hi\n');
          return undefined;
        }));
      }
      await within(300, (done) => c.openssh_forwardInStreamLocal(o.path, done));
      return within(300, (done) => c.openssh_unforwardInStreamLocal(o.path, done));
    default: return undefined;
  }
}

function x11Opts(o) {
  return o.reject ? true : { single: true, screen: 0 };
}

// ---------------------------------------------------------------------------
// Case kinds.
async function sessionCase(ctx) {
  const { R } = ctx;
  const P = serverPolicy(R);
  const algos = drawAlgorithms(R, P.hostFormats, null);
  const port = await startServer(ctx, P, algos.server);
  const plan = authPlan(R);
  const cfg = clientConfig(ctx, R, port, plan, algos.client);
  const ops = planOps(R);
  const end = R.pick(['end', 'end', 'end', 'end', 'destroy', 'midway']);
  const st = connect(ctx, cfg, plan);
  const ready = await Promise.race([st.readyP, sleep(3000).then(() => false)]);
  if (!ready) { await Promise.race([st.closed, sleep(100)]); return; }
  for (let k = 0; k < ops.length; k++) {
    if (end === 'midway' && k === ops.length - 1) {
      // destroy while the last operation is still running
      const running = clientOp(ctx, st, ops[k]);
      await sleep(2);
      st.c.destroy();
      await Promise.race([running, sleep(300)]);
      break;
    }
    try { await clientOp(ctx, st, ops[k]); } catch (e) { /* not connected any more */ }
  }
  if (end === 'destroy') st.c.destroy(); else st.c.end();
  await Promise.race([st.closed, sleep(300)]);
}

async function nomatchCase(ctx) {
  const { R } = ctx;
  const P = serverPolicy(R);
  const failCat = R.pick(['kex', 'kex', 'cipher', 'cipher', 'hmac', 'compress', 'serverHostKey', 'serverHostKey', 'gex']);
  const algos = drawAlgorithms(R, P.hostFormats, failCat);
  const port = await startServer(ctx, P, algos.server);
  const plan = authPlan(R);
  const st = connect(ctx, clientConfig(ctx, R, port, plan, algos.client), plan);
  await Promise.race([st.closed, sleep(1500)]);
}

async function rejectCase(ctx) {
  const { R } = ctx;
  const P = serverPolicy(R);
  P.reject = R.pick(['nolistener', 'end', 'ident', 'maxconn']);
  const port = await startServer(ctx, P, undefined);
  const plan = authPlan(R);
  const cfg = clientConfig(ctx, R, port, plan, undefined);
  if (P.reject === 'ident') cfg.ident = R.chance(0.8) ? 'EvilScanner_1.0' : 'OpenSSH_9.6';
  const st = connect(ctx, cfg, plan);
  const ready = await Promise.race([st.readyP, sleep(1500).then(() => false)]);
  if (ready) { await clientOp(ctx, st, execPlan(R)); st.c.end(); }
  await Promise.race([st.closed, sleep(300)]);
}

async function timeoutCase(ctx) {
  const { R } = ctx;
  const how = R.pick(['silent', 'identonly', 'authhang', 'authhang']);
  let port;
  const plan = authPlan(R);
  if (how === 'authhang') {
    const P = serverPolicy(R);
    P.authHang = true;
    port = await startServer(ctx, P, undefined);
  } else {
    port = rawPorts[how];
  }
  const cfg = clientConfig(ctx, R, port, plan, undefined);
  cfg.readyTimeout = R.pick([40, 80, 120]);
  const st = connect(ctx, cfg, plan);
  await Promise.race([st.closed, sleep(cfg.readyTimeout + 400)]);
}

async function rawPeerCase(ctx) {
  const { R } = ctx;
  const mode = R.pick(RAW_PEERS.concat(['closed', 'closed']));
  const plan = authPlan(R);
  const cfg = clientConfig(ctx, R, mode === 'closed' ? CLOSED_PORT : rawPorts[mode], plan, undefined);
  cfg.readyTimeout = R.pick([100, 200]);
  const st = connect(ctx, cfg, plan);
  await Promise.race([st.closed, sleep(cfg.readyTimeout + 400)]);
}

/*
 * Raw clients talking to the case's ssh2 server:
 *   http         an HTTP request
 *   sshv1        an SSH-1.5 identification
 *   identclose   an identification, then close
 *   chatty       an identification, DEBUG and IGNORE, then a KEXINIT whose
 *                only cipher is arcfour
 *   truncated    an identification and half a KEXINIT, then close
 *   early        an identification, then a service request before any key exchange
 *   mute         an identification, then silence
 */
const RAW_CLIENTS = ['http', 'sshv1', 'identclose', 'chatty', 'chatty', 'truncated', 'early', 'mute'];

async function rawClientCase(ctx) {
  const { R } = ctx;
  const P = serverPolicy(R);
  const port = await startServer(ctx, P, undefined);
  const mode = R.pick(RAW_CLIENTS);
  const ident = 'SSH-2.0-PuTTY_Release_0.76\r\n';
  await new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    ctx.sockets.add(sock);
    sock.setNoDelay(true);
    sock.on('error', noop);
    sock.on('data', noop);
    sock.on('close', () => resolve());
    const t = setTimeout(() => { sock.destroy(); }, 120);
    sock.on('close', () => clearTimeout(t));
    sock.on('connect', () => {
      switch (mode) {
        case 'http': sock.end('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'); break;
        case 'sshv1': sock.write('SSH-1.5-Cisco-1.25\r\n'); setTimeout(() => sock.end(), 20); break;
        case 'identclose': sock.write(ident); setTimeout(() => sock.end(), 10); break;
        case 'chatty':
          sock.write(ident);
          setTimeout(() => sock.write(Buffer.concat([MSG_DEBUG, MSG_IGNORE, kexinit({ cipher: 'arcfour' })])), 2);
          break;
        case 'truncated': {
          const k = kexinit({});
          sock.write(ident);
          setTimeout(() => sock.end(k.subarray(0, k.length >> 1)), 2);
          break;
        }
        case 'early': sock.write(ident); setTimeout(() => sock.write(MSG_SERVICE), 2); break;
        default: sock.write(ident); break;
      }
    });
  });
}

const KINDS = [['session', 70], ['nomatch', 6], ['reject', 5], ['timeout', 5], ['rawpeer', 8], ['rawclient', 6]];
const RUNNERS = { session: sessionCase, nomatch: nomatchCase, reject: rejectCase, timeout: timeoutCase,
  rawpeer: rawPeerCase, rawclient: rawClientCase };

function pickKind(R) {
  let x = R.rand() * KINDS.reduce((a, k) => a + k[1], 0);
  for (const [k, w] of KINDS) { x -= w; if (x < 0) return k; }
  return 'session';
}

async function teardown(ctx) {
  for (const c of ctx.clients) { try { c.destroy(); } catch (e) { /* gone */ } }
  for (const c of ctx.serverClients) { try { c.end(); } catch (e) { /* gone */ } }
  await sleep(2);
  for (const s of ctx.sockets) s.destroy();
  await Promise.all(ctx.servers.map((srv) => new Promise((r) => { try { srv.close(() => r()); } catch (e) { r(); } setTimeout(r, 200); })));
  for (const s of rawSockets) s.destroy();  // raw peers' ends of this case's connections
  await sleep(2);
}

// ---------------------------------------------------------------------------
async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const kind = pickKind(R);
  const ctx = { ck, R, kind, servers: [], sockets: new Set(), clients: [], serverClients: [], x11Reject: false, errors: [], user: '' };
  const t0 = Date.now();
  log.caseId = ck;
  try {
    await Promise.race([RUNNERS[kind](ctx), sleep(6000)]);
  } catch (e) {
    if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${e.stack}\n`);
  }
  await teardown(ctx);
  log.caseId = null;
  if (process.env.PMRAG_TIMING) {
    process.stderr.write(`${ck} ${kind} ${ctx.user} ${Date.now() - t0}ms ${log._rows.length} events` +
      (ctx.errors.length ? ` errors: ${ctx.errors.join('; ')}` : '') + '\n');
  }
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
    ` (${foreign} records after their case dropped` + (escaped ? `, ${escaped} exceptions escaped ssh2` : '') + ')\n');
  cleanup();
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
