#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `kafkajs` 2.2.4 (plain CommonJS in `src/`, no
 * dependencies) against a throw-away Apache Kafka broker (one KRaft node,
 * the version the `kafka` tests pin, see _kafka.js) that the generator
 * starts for the run.
 *
 *   node gen_kafkajs.js --repo                 # prints the directory to index
 *   node gen_kafkajs.js --out .deps/logs/kafkajs.csv.gz [--cases 300] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/kafkajs/src (truth paths `src/...`).
 * The broker's jars: `deploy/deps.sh --kafka` (run.sh's `deps:kafka` setup).
 *
 * Logging: kafkajs logs through a logger of its own, made once per client
 * from the `logLevel` and `logCreator` options (src/loggers/index.js) and
 * handed down through constructors; every component takes a child with
 * `logger.namespace('Consumer')` (also `Fetcher ${nodeId}`) and logs a
 * message, mostly a constant, with the variable parts in a structured
 * object: `logger.info('Consumer has joined the group', { groupId,
 * memberId, ... })`.  The logger's level functions (`createLevel`) drop
 * what is above the level and hand `{namespace, level, label, log: {
 * timestamp, logger: 'kafkajs', message, ...extra }}` to the function the
 * application's logCreator returned.  Each case's client gets a logCreator
 * of its own, whose function records the entry, with its call site, while
 * that case is open (entries of an earlier case's clients are dropped and
 * counted).  The application may filter too: at DEBUG some cases keep only
 * some namespaces (the protocol's `Connection` and `RequestQueue` chatter
 * left out, or only the consumer's namespaces), as applications do.
 *   - activity: the message (`String(message)`, as kafkajs's own console
 *     logger renders it; a few sites log an Error object), without the
 *     extra fields, which a bridge to OpenTelemetry makes the record's
 *     attributes, and without the console logger's JSON envelope and
 *     `[namespace] ` prefix (the namespace is the logger);
 *   - level: the label (`ERROR`, `WARN`, `INFO`, `DEBUG`);
 *   - logger: the namespace (`Consumer`, `ConsumerGroup`, `Runner`,
 *     `Fetcher 1`, `Connection`...), `kafkajs` for the root logger.
 * src/loggers is the logger itself (machinery, never an emitter), so a
 * record's emitter is the caller of the level function.
 *
 * Wrappers (frames skipped, their caller is the emitter, code.wrapped=1):
 *   - the arrow `(message, extra = {}) => {...}` that `log(level)` returns
 *     in the Connection constructor (src/network/connection.js, stored as
 *     `this.logDebug` and `this.logError`): its body only adds the
 *     `broker` and `clientId` fields to its caller's and forwards to the
 *     namespaced logger.  It has no name, so it is declared by where its
 *     definition begins (`@L:C`, found in the installed file at start).
 *
 * Broker: Apache Kafka (KRaft, one node that is broker and controller)
 * runs as a child process of the generator on free 127.0.0.1 ports, its
 * data in a temp dir, killed and removed at exit (_kafka.js).  Clients
 * reach it through a TCP proxy in the generator: the broker advertises the
 * proxy's port on a listener of its own, so that a case can have its
 * connections cut or stalled (the server closing them, answers held back
 * past the request timeout).  A second listener takes SASL (PLAIN,
 * SCRAM-SHA-256, SCRAM-SHA-512) for one user.  A quiet admin client of the
 * generator (logging nothing) creates three shared topics, warms up the
 * group and transaction coordinators before the first case, and removes
 * what each case leaves (its topics and groups, named after it) after it,
 * on the broker's internal listener.
 *
 * A case is one application's session with its own seeded PRNG and its own
 * client (clientId, log level and namespaces, connection and request
 * timeouts, retry settings, sometimes a dead broker first in the bootstrap
 * list, sometimes the SASL listener with one of the three mechanisms), with
 * one of:
 *   - producer (25%): a producer (idempotent or not, acks, invalid acks,
 *     compression, auto topic creation on or off, limited retries, one
 *     request in flight) sending messages and batches to shared topics, to a
 *     topic of the case and to unknown topics, sometimes several sends at
 *     once or after partitions were added behind its metadata; connections
 *     cut or stalled mid-way; a send after disconnect;
 *   - transactions (12%): a transactional producer committing and
 *     aborting, empty transactions, consumer offsets sent in a transaction,
 *     a send outside one, a second producer with the same transactionalId
 *     fencing the first;
 *   - consumers (30%): 1-3 consumers of one group on a topic of the case
 *     fed by a producer, running eachMessage or eachBatch (auto or manual
 *     commits, partitions consumed concurrently), joining late and leaving
 *     early (rebalances), one subscribed to another topic, handlers that
 *     throw once or every time (retries, crashes, restarts, a restart
 *     policy that fails), pause and resume, seeks (some past the end:
 *     offset out of range), partitions added, a session that expires, `run`
 *     called twice, a subscription by RegExp or to a missing topic,
 *     connections cut, listeners that throw;
 *   - admin (23%): a random script of admin operations (create, describe,
 *     alter and delete topics, partitions, configs, records, groups,
 *     offsets, partition reassignments and ACLs, the last refused since the
 *     broker has no authorizer), invalid requests among them;
 *   - failures (10%): no broker at the bootstrap address, wrong SASL
 *     credentials, SASL spoken to the plaintext listener, a mechanism the
 *     broker does not enable (OAUTHBEARER, AWS), a server that accepts and
 *     never answers, one that closes every connection at once.
 * A case that runs over 12 s is cut; what it left connected is
 * disconnected before it ends.  Cases with fewer than 3 records are
 * dropped.  Math.random (kafkajs's retry jitter) is seeded per case too.
 *
 * Messages hold generated topic and group names, member ids the broker
 * makes, producer ids, offsets, ports and retry times; which member leads
 * a group, when a fetch sees a rebalance and how many retries a cut
 * connection costs depend on timing: a regenerated log is close to, not
 * equal to, an earlier one.  PMRAG_VERBOSE=1 prints one line per case (its
 * steps and unexpected errors) to stderr; PMRAG_ONLY=3,17 runs only those
 * cases.
 */
const fs = require('fs');
const net = require('net');
const path = require('path');
const cap = require('./_capture');

const USAGE = `usage: gen_kafkajs.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]
  --repo       print the directory to index (<deps>/node_modules/kafkajs/src)
  --out FILE   write the gzipped CSV event log to FILE
  --cases N    number of cases (default 300)
  --seed S     seed; case i draws from a PRNG seeded with "S-i" (default 1)
  --deps DIR   the npm install of npm/kafkajs (default .deps/corpus/kafkajs)
example:
  node tests/bench/logs/gen_kafkajs.js --out /tmp/kafkajs.csv.gz --cases 100 --seed 7
`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const args = cap.parseArgs(process.argv, 'kafkajs', 300);
const KJS_DIR = path.join(args.deps, 'node_modules', 'kafkajs');
const INDEX_DIR = path.join(KJS_DIR, 'src');
if (!fs.existsSync(path.join(KJS_DIR, 'package.json'))) {
  process.stderr.write(`kafkajs not installed in ${args.deps} (npm ci there)\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(INDEX_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write(USAGE);
  process.exit(2);
}

const VERBOSE = !!process.env.PMRAG_VERBOSE;
const ONLY = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { KafkaBroker } = require('./_kafka');

// ---------------------------------------------------------------------------
// The wrapper arrow of the Connection constructor, found where it begins in
// the installed file (a different kafkajs would move it: then stop).
function connectionLogArrow() {
  const probe = {};
  const prev = Error.prepareStackTrace;
  Error.prepareStackTrace = (_e, sites) => sites;
  Error.captureStackTrace(probe);
  const site = probe.stack[0];
  Error.prepareStackTrace = prev;
  if (typeof site.getEnclosingLineNumber !== 'function') throw new Error('this node cannot tell where a function begins (CallSite.getEnclosingLineNumber)');
  const file = path.join(INDEX_DIR, 'network', 'connection.js');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const needle = 'const log = level => (message, extra = {}) => {';
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i].indexOf(needle);
    if (c >= 0) return `@${i + 1}:${c + needle.indexOf('(message') + 1}`;
  }
  throw new Error(`${file}: the log arrow of the Connection constructor is not where kafkajs 2.2.4 has it`);
}

const log = new cap.EventLog(args.out, {
  indexDir: INDEX_DIR,
  machinery: [path.join(INDEX_DIR, 'loggers')],
  wrappers: [['src/network/connection.js', connectionLogArrow()]],
});
const { Kafka, logLevel: LEVEL, CompressionTypes } = require(KJS_DIR);

// ---------------------------------------------------------------------------
// Each case's logCreator.  keep(namespace) decides, at DEBUG only, which
// namespaces the application lets through.
let foreign = 0; // entries of another (earlier) case's clients
const foreignBy = new Map(); // by case and namespace, for PMRAG_VERBOSE
function creatorFor(cid, keep) {
  return () => function kafkajsLogEntry({ namespace, label, log: entry }) {
    if (log.caseId !== cid) {
      foreign++;
      if (VERBOSE) { const k = `${cid}/${namespace}/${entry.message}`.slice(0, 90); foreignBy.set(k, (foreignBy.get(k) || 0) + 1); }
      return;
    }
    if (label === 'DEBUG' && keep && !keep(namespace || '')) return;
    log.record(String(entry.message), label, namespace || 'kafkajs', kafkajsLogEntry);
  };
}

// ---------------------------------------------------------------------------
// The proxy between the cases' clients and the broker's EXTERNAL listener.
class Proxy {
  constructor() { this.conns = new Set(); this.target = 0; this.server = null; }
  async listen() {
    this.server = net.createServer((c) => {
      const u = net.connect(this.target, '127.0.0.1');
      const pair = { c, u };
      this.conns.add(pair);
      const done = () => { this.conns.delete(pair); c.destroy(); u.destroy(); };
      c.on('error', done); u.on('error', done); c.on('close', done); u.on('close', done);
      c.pipe(u);
      u.pipe(c);
    });
    await new Promise((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = this.server.address().port;
  }
  // The server closes every open connection (clients see their sockets end).
  cut() { for (const p of [...this.conns]) { p.u.destroy(); p.c.end(); setTimeout(() => p.c.destroy(), 5); } }
  // The broker's answers held back for ms on every open connection.
  stall(ms) {
    for (const p of this.conns) {
      p.u.unpipe(p.c); p.u.pause();
      setTimeout(() => { if (!p.c.destroyed) { p.u.pipe(p.c); p.u.resume(); } }, ms);
    }
  }
  close() { this.cut(); if (this.server) this.server.close(); }
}

// Servers of the failure cases: one that accepts and never answers, one that
// closes every connection at once.
async function miniServer(onConn) {
  const socks = new Set();
  const s = net.createServer((c) => { socks.add(c); c.on('error', () => {}); c.on('close', () => socks.delete(c)); onConn(c); });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, close: () => { for (const c of socks) c.destroy(); s.close(); } };
}

// ---------------------------------------------------------------------------
const swallow = (p) => (p && p.catch ? p.catch((e) => e) : p);
const withTimeout = (p, ms) => Promise.race([swallow(p), sleep(ms).then(() => 'timeout')]);
const errs = new Map(); // the errors the steps met, for PMRAG_VERBOSE
function note(st, what, r) {
  if (r instanceof Error) {
    st.trace.push(`${what}!${r.name}`);
    const k = `${what}: ${r.name}: ${String(r.message).slice(0, 80)}`;
    errs.set(k, (errs.get(k) || 0) + 1);
  } else if (r === 'timeout') st.trace.push(`${what}!timeout`);
  else st.trace.push(what);
  return r;
}
async function step(st, what, p, ms) {
  const t = Date.now();
  const r = note(st, what, await withTimeout(p, ms || 3000));
  const took = Date.now() - t;
  if (took >= 300) st.trace[st.trace.length - 1] += `(${took}ms)`;
  return r;
}

const WORDS = ['orders', 'payments', 'clicks', 'audit', 'metrics', 'users', 'invoices', 'events', 'alerts', 'shipments'];
// namespaces an application may keep at DEBUG, by the part of kafkajs they log
const NS_GROUPS = {
  consumer: ['Consumer', 'ConsumerGroup', 'Runner', 'FetchManager', 'Fetcher'],
  producer: ['Producer', 'kafkajs'],
  cluster: ['Cluster', 'BrokerPool', 'Broker', 'Admin', 'SaslAuthenticator'],
};
const SHARED = ['shared-events', 'shared-orders', 'shared-logs'];
const SASL_USER = 'bob';
const SASL_PASSWORD = 'bob-secret';
const CASE_LIMIT_MS = 12000;

async function main() {
  const proxy = new Proxy();
  await proxy.listen();
  const broker = new KafkaBroker('kafkajs', {
    external: proxy.port,
    sasl: { user: SASL_USER, password: SASL_PASSWORD },
    props: ['auto.create.topics.enable=true', 'num.partitions=2', 'log.index.size.max.bytes=1048576',
      'transaction.max.timeout.ms=60000'],
  });
  const cleanup = () => { proxy.close(); broker.stop(); };
  process.on('SIGINT', () => { cleanup(); process.exit(130); });
  process.on('SIGTERM', () => { cleanup(); process.exit(143); });
  process.on('unhandledRejection', (e) => { if (VERBOSE) process.stderr.write(`unhandled: ${e && e.stack}\n`); });
  const t0 = Date.now();
  await broker.start();
  proxy.target = broker.externalPort;
  const bootstrap = `127.0.0.1:${proxy.port}`;

  // The quiet admin: shared topics before the first case, each case's topics
  // and groups removed after it.
  const quiet = new Kafka({ clientId: 'generator', brokers: [broker.bootstrap], logLevel: LEVEL.NOTHING,
    logCreator: () => () => {}, retry: { retries: 2, initialRetryTime: 50 } });
  const qadmin = quiet.admin();
  await qadmin.connect();
  await qadmin.createTopics({ topics: SHARED.map((t, k) => ({ topic: t, numPartitions: k + 1 })), waitForLeaders: true });
  // The group and transaction coordinators come up with the first request
  // that needs them: up before the first case.
  const warm = quiet.producer({ transactionalId: 'generator-warmup', maxInFlightRequests: 1, idempotent: true });
  await warm.connect();
  const wt = await warm.transaction();
  await wt.send({ topic: SHARED[0], messages: [{ value: 'warm' }] });
  await wt.commit();
  await warm.disconnect();
  const wc = quiet.consumer({ groupId: 'generator-warmup', sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 100 });
  await wc.connect();
  await wc.subscribe({ topic: SHARED[0], fromBeginning: true });
  let warmed = false;
  await wc.run({ eachMessage: async () => { warmed = true; } });
  for (let k = 0; k < 100 && !warmed; k++) await sleep(50);
  await wc.disconnect();
  process.stderr.write(`kafkajs: Apache Kafka ${broker.version} at ${broker.bootstrap} (clients through ${bootstrap}, ` +
    `SASL at ${broker.saslBootstrap}), ready in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);

  // ----------------------------------------------------------------- cases
  // The application's logging: kafkajs's level, and at DEBUG which
  // namespaces it lets through.
  function logging(R, st, kind) {
    // at INFO a producer or an admin client logs only its troubles: DEBUG
    // more often there, or most of those cases would log too little to keep
    const debugShare = { admin: 0.75, producer: 0.7, tx: 0.7, failure: 0.5 }[kind] || 0.45;
    const u = R.rand();
    const level = u < debugShare ? LEVEL.DEBUG : u < debugShare + (1 - debugShare) * 0.75 ? LEVEL.INFO : R.pick([LEVEL.WARN, LEVEL.ERROR]);
    let keep = null;
    if (level === LEVEL.DEBUG) {
      const k = R.rand();
      if (k < 0.45) keep = (ns) => ns !== 'Connection' && ns !== 'RequestQueue'; // the protocol chatter off
      else if (k < 0.65) {
        const allowed = [].concat(...R.sample(Object.values(NS_GROUPS), R.int(1, 2)));
        keep = (ns) => allowed.some((a) => ns === a || ns.startsWith(a + ' ') || ns.startsWith(a + '-'));
      } else if (k < 0.8) keep = (ns) => ns !== 'RequestQueue';
    }
    st.trace.push(`L${level}${keep ? 'f' : ''}`);
    return { logLevel: level, logCreator: creatorFor(st.cid, keep) };
  }

  function newKafka(R, st, kind, extra) {
    const cfg = Object.assign({
      clientId: R.pick(['kafkajs', `app-${st.id}`, 'orders-service', 'billing-worker', 'etl']),
      brokers: [bootstrap],
      connectionTimeout: R.int(300, 1000),
      requestTimeout: R.pick([500, 1000, 1500, 3000]),
      enforceRequestTimeout: R.chance(0.9),
      retry: { initialRetryTime: R.int(20, 80), retries: R.int(1, 4), maxRetryTime: 400, factor: 0.2, multiplier: 2 },
    }, logging(R, st, kind));
    if (R.chance(0.06)) cfg.brokers = [`127.0.0.1:${st.deadPort}`, bootstrap]; // a dead seed broker first
    else if (R.chance(0.12)) { // the SASL listener, right credentials
      cfg.brokers = [broker.saslBootstrap];
      cfg.sasl = { mechanism: R.pick(['plain', 'scram-sha-256', 'scram-sha-512']), username: SASL_USER, password: SASL_PASSWORD };
      st.trace.push(`sasl:${cfg.sasl.mechanism}`);
    }
    Object.assign(cfg, extra || {});
    return new Kafka(cfg);
  }
  function track(st, c) { st.clients.push(c); return c; }
  // A client's disconnect as the application does it: once (the case's end
  // disconnects only what is still open).
  function close(st, what, c, ms) { st.closed.add(c); return step(st, what, c.disconnect(), ms); }

  const payload = (R, k) => {
    const m = { value: R.pick(['ok', JSON.stringify({ n: k, at: R.int(1, 1e6) }), 'x'.repeat(R.int(10, 300))]) };
    if (R.chance(0.5)) m.key = `k${R.int(0, 9)}`;
    if (R.chance(0.2)) m.headers = { 'trace-id': `t${R.int(1, 1e6)}` };
    if (R.chance(0.1)) m.partition = 0;
    return m;
  };

  // A topic of the case: created by the case's admin when it has one,
  // else by the quiet admin.
  async function caseTopic(R, st, admin, partitions) {
    const t = `${R.pick(WORDS)}-${st.cid}-${st.ntopics++}`;
    if (admin) await step(st, 'createTopic', admin.createTopics({ topics: [{ topic: t, numPartitions: partitions }], waitForLeaders: true }));
    else await withTimeout(qadmin.createTopics({ topics: [{ topic: t, numPartitions: partitions }], waitForLeaders: true }), 3000);
    return t;
  }

  // The broker's side of the proxy cuts or stalls every open connection.
  function fault(R, st, p) {
    if (!R.chance(p)) return;
    if (R.chance(0.6)) { st.trace.push('CUT'); proxy.cut(); } else { const ms = R.int(300, 900); st.trace.push(`STALL${ms}`); proxy.stall(ms); }
  }

  // --- producer
  async function producerCase(R, st) {
    const kafka = newKafka(R, st, 'producer');
    const opts = {};
    if (R.chance(0.25)) opts.idempotent = true;
    if (opts.idempotent && R.chance(0.4)) opts.retry = { retries: R.int(1, 3), initialRetryTime: 30 };
    if (R.chance(0.3)) opts.allowAutoTopicCreation = false;
    if (R.chance(0.2)) opts.metadataMaxAge = R.int(50, 500);
    if (R.chance(0.3)) opts.maxInFlightRequests = 1;
    const p = track(st, kafka.producer(opts));
    let admin = null;
    if (R.chance(0.4)) { admin = track(st, kafka.admin()); await step(st, 'adminConnect', admin.connect()); }
    await step(st, 'connect', p.connect());
    const own = await caseTopic(R, st, admin, R.int(1, 3));
    const n = R.int(1, 6);
    for (let k = 0; k < n; k++) {
      fault(R, st, 0.08);
      const kind = R.pick(['send', 'send', 'batch', 'shared', 'unknown', 'parallel', 'acks', 'compressed', 'grow']);
      const msgs = Array.from({ length: R.int(1, 5) }, (_, j) => payload(R, j));
      const base = { acks: opts.idempotent ? -1 : R.pick([-1, 1, 1, 0]), timeout: R.pick([500, 1000, 3000]) };
      switch (kind) {
        case 'send': await step(st, 'send', p.send({ topic: own, messages: msgs, ...base })); break;
        case 'shared': await step(st, 'sendShared', p.send({ topic: R.pick(SHARED), messages: msgs, ...base })); break;
        case 'batch':
          await step(st, 'sendBatch', p.sendBatch({ topicMessages: [{ topic: own, messages: msgs }, { topic: R.pick(SHARED), messages: msgs.slice(0, 2) }], ...base }));
          break;
        case 'unknown': // no such topic: the broker creates it unless the producer forbids it
          await step(st, 'sendUnknown', p.send({ topic: `${R.pick(['missing', 'auto'])}-${st.cid}-${k}`, messages: msgs, ...base }), 2500);
          break;
        case 'parallel': // sends at once: with one request in flight, the rest wait in the queue
          await step(st, 'sendParallel', Promise.all([0, 1, 2].map((j) => p.send({ topic: j === 1 ? R.pick(SHARED) : own, messages: msgs, ...base }))));
          break;
        case 'acks': await step(st, 'sendAcks', p.send({ topic: own, messages: msgs, acks: opts.idempotent ? -1 : R.pick([0, 0, 2]), timeout: 1000 })); break;
        case 'compressed': await step(st, 'sendGzip', p.send({ topic: own, messages: msgs, compression: CompressionTypes.GZIP, ...base })); break;
        case 'grow': // partitions added behind the producer's metadata
          await withTimeout(qadmin.createPartitions({ topicPartitions: [{ topic: own, count: 4 + k }] }), 2000);
          await step(st, 'sendGrown', p.send({ topic: own, messages: msgs.concat([{ value: 'p', partition: 3 }]), ...base }));
          break;
        default: break;
      }
    }
    await close(st, 'disconnect', p);
    if (R.chance(0.2)) await step(st, 'sendClosed', p.send({ topic: own, messages: [{ value: 'late' }] }));
    if (admin) await close(st, 'adminDisconnect', admin);
  }

  // --- transactions
  async function transactionCase(R, st) {
    const kafka = newKafka(R, st, 'tx');
    const txid = `tx-${st.cid}`;
    const p = track(st, kafka.producer({ transactionalId: txid, maxInFlightRequests: 1, idempotent: true,
      transactionTimeout: R.pick([5000, 30000]) }));
    await step(st, 'connect', p.connect());
    const own = await caseTopic(R, st, null, R.int(1, 2));
    const n = R.int(1, 4);
    for (let k = 0; k < n; k++) {
      const tx = await withTimeout(p.transaction(), 3000);
      if (!tx || tx instanceof Error || tx === 'timeout') { note(st, 'transaction', tx); break; }
      st.trace.push('tx');
      if (R.chance(0.12)) { // nothing sent: kafkajs ends it without asking the coordinator
        await step(st, 'emptyEnd', R.chance(0.5) ? tx.commit() : tx.abort());
        continue;
      }
      await step(st, 'txSend', tx.send({ topic: own, messages: [payload(R, k), payload(R, k + 1)] }));
      if (R.chance(0.3)) await step(st, 'txSendBatch', tx.sendBatch({ topicMessages: [{ topic: R.pick(SHARED), messages: [payload(R, k)] }] }));
      if (R.chance(0.3)) {
        await step(st, 'sendOffsets', tx.sendOffsets({ consumerGroupId: `grp-${st.cid}`,
          topics: [{ topic: own, partitions: [{ partition: 0, offset: String(R.int(0, 5)) }] }] }));
      }
      if (R.chance(0.15)) {
        // a second producer with the same transactionalId: it waits for this
        // transaction to be aborted, then fences this producer off
        const p2 = track(st, kafka.producer({ transactionalId: txid, maxInFlightRequests: 1, idempotent: true }));
        await step(st, 'fence', p2.connect());
        await step(st, 'fencedCommit', tx.commit());
        await step(st, 'fencedSend', p.send({ topic: own, messages: [{ value: 'z' }] }));
        await close(st, 'disconnect2', p2);
        break;
      }
      if (R.chance(0.1)) await step(st, 'sendOutside', p.send({ topic: own, messages: [{ value: 'outside' }] }));
      if (R.chance(0.65)) await step(st, 'commit', tx.commit());
      else await step(st, 'abort', tx.abort());
      if (R.chance(0.1)) await step(st, 'commitTwice', tx.commit());
    }
    await close(st, 'disconnect', p);
  }

  // --- consumers
  async function consumerCase(R, st) {
    const kafka = newKafka(R, st, 'consumer');
    const parts = R.int(1, 4);
    const admin = R.chance(0.3) ? track(st, kafka.admin()) : null;
    if (admin) await step(st, 'adminConnect', admin.connect());
    const topic = await caseTopic(R, st, admin, parts);
    const other = R.chance(0.12) ? await caseTopic(R, st, admin, 1) : null; // a second consumer subscribes to this one
    const groupId = `grp-${st.cid}`;
    const producer = track(st, kafka.producer());
    await step(st, 'pconnect', producer.connect());
    const shortSession = R.chance(0.1);
    const copts = {
      groupId, sessionTimeout: shortSession ? R.int(1000, 1400) : R.int(3000, 8000), rebalanceTimeout: R.int(2000, 6000),
      heartbeatInterval: R.int(100, 400), maxWaitTimeInMs: R.int(100, 400),
      retry: { retries: R.int(1, 3), initialRetryTime: R.int(30, 100), maxRetryTime: 300 },
    };
    if (R.chance(0.15)) copts.allowAutoTopicCreation = false;
    if (R.chance(0.15)) copts.readUncommitted = true;
    if (R.chance(0.1)) copts.maxBytesPerPartition = R.int(200, 2000);
    if (R.chance(0.1)) copts.retry.restartOnFailure = async () => { if (R.chance(0.3)) throw new Error('restart policy failed'); return R.chance(0.5); };
    let consumed = 0;
    // a handler that fails: once (the runner retries it), or every time (the
    // consumer crashes once its retries are spent, and restarts)
    const failOn = R.chance(0.25) ? R.int(0, 4) : -1;
    const failAlways = R.chance(0.4);
    let failed = 0;
    const failing = (offset) => (consumed === failOn + 1 || (failAlways && failed > 0 && failed < 6)) && ++failed;
    const eachMessage = async ({ message, pause }) => {
      consumed++;
      if (failing(message.offset)) {
        if (R.chance(0.4)) { const e = new Error('downstream timeout'); e.retriable = true; throw e; }
        throw new TypeError(`cannot read property 'id' of message ${message.offset}`);
      }
      if (R.chance(0.03)) { const resume = pause(); setTimeout(resume, 30); }
    };
    const eachBatch = async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      for (const m of batch.messages) {
        if (!isRunning() || isStale()) break;
        consumed++;
        if (failing(m.offset)) throw new Error(`batch handler failed at ${m.offset}`);
        resolveOffset(m.offset);
      }
      await heartbeat();
    };
    const useBatch = R.chance(0.3);
    const autoCommit = R.chance(0.8);
    const consumers = [];
    const startConsumer = async (tag, topics) => {
      const c = track(st, kafka.consumer(copts));
      consumers.push(c);
      st.consumers.push(c);
      if (R.chance(0.08)) c.on(c.events.GROUP_JOIN, async () => { throw new Error('listener failed'); });
      await step(st, `${tag}connect`, c.connect());
      if (R.chance(0.1)) await step(st, `${tag}subRe`, c.subscribe({ topics: [new RegExp(`^[a-z]+-${st.cid}-0$`)], fromBeginning: true }));
      else await step(st, `${tag}sub`, c.subscribe({ topics, fromBeginning: R.chance(0.7) }));
      if (R.chance(0.06)) await step(st, `${tag}subMissing`, c.subscribe({ topics: [`nosuch-${st.cid}`] }));
      const runOpts = { autoCommit, partitionsConsumedConcurrently: R.int(1, 2) };
      if (autoCommit && R.chance(0.3)) runOpts.autoCommitThreshold = R.int(1, 5);
      if (useBatch) runOpts.eachBatch = eachBatch; else runOpts.eachMessage = eachMessage;
      await step(st, `${tag}run`, c.run(runOpts));
      if (R.chance(0.04)) await step(st, `${tag}runTwice`, c.run(runOpts));
      return c;
    };
    const nCons = R.pick([1, 1, 1, 2, 2, 3]);
    await startConsumer('c0', [topic]);
    const produce = async (k, t) => step(st, 'produce', producer.send({ topic: t || topic, messages: Array.from({ length: k }, (_, j) => payload(R, j)) }));
    await produce(R.int(2, 8));
    const waitFor = async (n, ms) => { const end = Date.now() + ms; while (consumed < n && Date.now() < end) await sleep(20); };
    await waitFor(2, 1500);
    for (let c = 1; c < nCons; c++) {
      await startConsumer(`c${c}`, other && c === 1 ? [other] : [topic]);
      await produce(R.int(1, 4));
      await sleep(R.int(50, 250));
    }
    if (shortSession && R.chance(0.6)) { st.trace.push('STALL1600'); proxy.stall(1600); await sleep(1700); } // the session expires
    fault(R, st, 0.1);
    const ops = R.int(0, 3);
    for (let k = 0; k < ops; k++) {
      const op = R.pick(['produce', 'produce', 'pause', 'seek', 'seekFar', 'commit', 'describe', 'leave', 'stop', 'grow']);
      const c = R.pick(consumers);
      switch (op) {
        case 'produce': await produce(R.int(1, 6)); await waitFor(consumed + 1, 600); break;
        case 'pause': // throws when the consumer is not running (it crashed)
          try { c.pause([{ topic }]); st.trace.push('pause'); } catch (e) { note(st, 'pause', e); break; }
          await produce(R.int(1, 3)); await sleep(R.int(50, 200));
          try { c.resume([{ topic }]); st.trace.push('resume'); } catch (e) { note(st, 'resume', e); }
          break;
        case 'seek': case 'seekFar':
          try {
            c.seek({ topic, partition: R.int(0, parts - 1), offset: op === 'seekFar' ? String(R.int(500, 5000)) : R.pick(['0', '-1', '1', 'bogus']) });
            st.trace.push(op);
          } catch (e) { note(st, op, e); }
          await sleep(R.int(100, 300));
          break;
        case 'commit':
          await step(st, 'commitOffsets', c.commitOffsets([{ topic, partition: 0, offset: String(R.int(0, 4)) }]));
          break;
        case 'describe': await step(st, 'describeGroup', c.describeGroup()); break;
        case 'leave':
          if (consumers.length > 1) { consumers.splice(consumers.indexOf(c), 1); await close(st, 'leave', c); await sleep(R.int(100, 300)); }
          break;
        case 'stop':
          await step(st, 'stop', c.stop());
          if (R.chance(0.5)) await step(st, 'rerun', c.run(useBatch ? { eachBatch } : { eachMessage }));
          break;
        case 'grow': // partitions added while the group consumes
          await withTimeout(qadmin.createPartitions({ topicPartitions: [{ topic, count: parts + R.int(1, 2) }] }), 2000);
          st.trace.push('grow');
          await produce(R.int(2, 5));
          await sleep(R.int(200, 400));
          break;
        default: break;
      }
    }
    await sleep(R.int(50, 200));
    for (const c of R.shuffle(consumers)) await close(st, 'cdisconnect', c, 4000);
    await close(st, 'pdisconnect', producer);
    if (admin) {
      if (R.chance(0.5)) await step(st, 'fetchOffsets', admin.fetchOffsets({ groupId, topics: [topic] }));
      await close(st, 'adminDisconnect', admin);
    }
  }

  // --- admin
  async function adminCase(R, st) {
    const kafka = newKafka(R, st, 'admin');
    const admin = track(st, kafka.admin({ retry: { retries: R.int(0, 3), initialRetryTime: 30, maxRetryTime: 200 } }));
    if (R.chance(0.08)) admin.on(admin.events.CONNECT, async () => { throw new Error('listener broke'); });
    await step(st, 'connect', admin.connect());
    const mine = [];
    const n = R.int(2, 8);
    for (let k = 0; k < n; k++) {
      fault(R, st, 0.05);
      const t = mine.length ? R.pick(mine) : R.pick(SHARED);
      // setting a group's offsets takes 5 s (below): rare
      const op = R.chance(0.012) ? R.pick(['resetOffsets', 'setOffsets']) : R.pick(['create', 'create', 'createExisting', 'createInvalid', 'partitions', 'partitionsBad', 'delete', 'deleteMissing',
        'metadata', 'metadataMissing', 'offsets', 'offsetsTs', 'describeConfigs', 'alterConfigs', 'alterBad', 'listGroups',
        'describeGroups', 'deleteGroups', 'deleteRecords', 'acl', 'describeCluster', 'listTopics', 'reassign', 'listReassign']);
      switch (op) {
        case 'create': {
          const name = `${R.pick(WORDS)}-${st.cid}-${st.ntopics++}`;
          mine.push(name);
          await step(st, op, admin.createTopics({ topics: [{ topic: name, numPartitions: R.int(1, 4),
            configEntries: R.chance(0.3) ? [{ name: 'cleanup.policy', value: R.pick(['compact', 'delete']) }] : [] }],
          validateOnly: R.chance(0.1), waitForLeaders: R.chance(0.8) }));
          break;
        }
        case 'createExisting': await step(st, op, admin.createTopics({ topics: [{ topic: t }] })); break;
        case 'createInvalid':
          await step(st, op, admin.createTopics({ topics: [{ topic: R.pick(['bad topic!', `x-${st.cid}`]), numPartitions: R.pick([-5, 1]),
            replicationFactor: R.pick([3, 1]), configEntries: [{ name: 'retention.ms', value: R.pick(['abc', '1000']) }] }] }));
          break;
        case 'partitions': await step(st, op, admin.createPartitions({ topicPartitions: [{ topic: t, count: R.int(3, 6) }] })); break;
        case 'partitionsBad': await step(st, op, admin.createPartitions({ topicPartitions: [{ topic: R.pick([t, `nosuch-${st.cid}`]), count: 1 }] })); break;
        case 'delete':
          if (mine.length) { const d = mine.splice(R.int(0, mine.length - 1), 1)[0]; await step(st, op, admin.deleteTopics({ topics: [d], timeout: 2000 })); }
          break;
        case 'deleteMissing': await step(st, op, admin.deleteTopics({ topics: [`nosuch-${st.cid}-${k}`], timeout: 1000 })); break;
        case 'metadata': await step(st, op, admin.fetchTopicMetadata({ topics: [t] })); break;
        case 'metadataMissing': await step(st, op, admin.fetchTopicMetadata({ topics: [`nosuch-${st.cid}`] })); break;
        case 'offsets': await step(st, op, admin.fetchTopicOffsets(t)); break;
        case 'offsetsTs': await step(st, op, admin.fetchTopicOffsetsByTimestamp(t, Date.now() - R.int(0, 1e6))); break;
        case 'describeConfigs':
          await step(st, op, admin.describeConfigs({ includeSynonyms: R.chance(0.5), resources: [R.pick([
            { type: 2, name: t }, { type: 4, name: '1' }, { type: 2, name: `nosuch-${st.cid}` }])] }));
          break;
        case 'alterConfigs':
          await step(st, op, admin.alterConfigs({ validateOnly: R.chance(0.3), resources: [{ type: 2, name: t,
            configEntries: [{ name: 'retention.ms', value: String(R.int(60000, 9e6)) }] }] }));
          break;
        case 'alterBad':
          await step(st, op, admin.alterConfigs({ resources: [{ type: 2, name: R.pick([t, `nosuch-${st.cid}`]),
            configEntries: [{ name: R.pick(['no.such.config', 'retention.ms']), value: 'xyz' }] }] }));
          break;
        case 'listGroups': await step(st, op, admin.listGroups()); break;
        case 'describeGroups': await step(st, op, admin.describeGroups([`grp-${st.cid}`, 'generator-warmup'])); break;
        case 'deleteGroups': await step(st, op, admin.deleteGroups([R.pick([`grp-${st.cid}`, 'nosuch-group'])])); break;
        case 'deleteRecords':
          await step(st, op, admin.deleteTopicRecords({ topic: t, partitions: [{ partition: 0, offset: R.pick(['-1', '0', '999']) }] }));
          break;
        case 'acl': {
          const acl = { resourceType: 2, resourceName: t, resourcePatternType: 3, principal: 'User:bob', host: '*', operation: 3, permissionType: 3 };
          const which = R.pick(['create', 'describe', 'delete']);
          if (which === 'create') await step(st, 'createAcls', admin.createAcls({ acl: [acl] }));
          else if (which === 'describe') await step(st, 'describeAcls', admin.describeAcls(acl));
          else await step(st, 'deleteAcls', admin.deleteAcls({ filters: [acl] }));
          break;
        }
        case 'describeCluster': await step(st, op, admin.describeCluster()); break;
        case 'listTopics': await step(st, op, admin.listTopics()); break;
        // kafkajs sets a group's offsets by running a paused consumer of the
        // group until its first fetch, which comes after the consumer's
        // default maximum wait, 5 s
        case 'resetOffsets': await step(st, op, admin.resetOffsets({ groupId: `grp-${st.cid}`, topic: R.pick(SHARED), earliest: R.chance(0.5) }), 6000); break;
        case 'setOffsets':
          await step(st, op, admin.setOffsets({ groupId: `grp-${st.cid}`, topic: R.pick(SHARED), partitions: [{ partition: 0, offset: String(R.int(0, 1)) }] }), 6000);
          break;
        case 'reassign': // one broker: replicas on a node that does not exist
          await step(st, op, admin.alterPartitionReassignments({ topics: [{ topic: t, partitionAssignment: [{ partition: 0, replicas: [R.pick([1, 2, 7])] }] }], timeout: 1000 }));
          break;
        case 'listReassign': await step(st, op, admin.listPartitionReassignments({ topics: R.chance(0.5) ? [{ topic: t, partitions: [0] }] : null, timeout: 1000 })); break;
        default: break;
      }
    }
    await close(st, 'disconnect', admin);
    if (R.chance(0.1)) await step(st, 'listClosed', admin.listTopics());
  }

  // --- failures
  async function failureCase(R, st) {
    const kind = R.pick(['refused', 'refused', 'saslWrong', 'saslWrong', 'saslPlaintext', 'saslUnsupported', 'silent', 'closer']);
    st.trace.push(kind);
    const extra = {};
    const bad = { username: SASL_USER, password: R.pick(['wrong', 'Secret', '']) };
    if (kind === 'refused') extra.brokers = [`127.0.0.1:${st.deadPort}`].concat(R.chance(0.3) ? [`127.0.0.1:${await cap.freePort()}`] : []);
    else if (kind === 'saslWrong') {
      extra.brokers = [broker.saslBootstrap];
      extra.sasl = { mechanism: R.pick(['plain', 'scram-sha-256', 'scram-sha-512']), ...bad };
    } else if (kind === 'saslPlaintext') { // SASL spoken to the plaintext listener
      extra.brokers = [bootstrap];
      extra.sasl = { mechanism: R.pick(['plain', 'scram-sha-256', 'scram-sha-512']), ...bad };
    } else if (kind === 'saslUnsupported') { // a mechanism the broker does not enable
      extra.brokers = [broker.saslBootstrap];
      extra.sasl = R.chance(0.5)
        ? { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: 'token-' + st.id }) }
        : { mechanism: 'aws', authorizationIdentity: 'AIDA0000', accessKeyId: 'AKIA0000', secretAccessKey: 'x' };
    } else {
      const server = await miniServer(kind === 'silent' ? () => {} : (c) => { c.destroy(); });
      st.servers.push(server);
      extra.brokers = [`127.0.0.1:${server.port}`];
      extra.requestTimeout = R.pick([300, 600]);
      extra.connectionTimeout = 300;
    }
    extra.retry = { initialRetryTime: R.int(20, 60), retries: R.int(1, 2), maxRetryTime: 200, factor: 0.2, multiplier: 2 };
    const kafka = newKafka(R, st, 'failure', extra);
    const who = R.pick(['producer', 'consumer', 'admin']);
    st.trace.push(who);
    if (who === 'producer') {
      const p = track(st, kafka.producer());
      await step(st, 'connect', p.connect(), 4000);
      await step(st, 'send', p.send({ topic: SHARED[0], messages: [{ value: 'x' }] }), 3000);
      await close(st, 'disconnect', p);
    } else if (who === 'consumer') {
      const c = track(st, kafka.consumer({ groupId: `grp-${st.cid}`, retry: { retries: 1, initialRetryTime: 50 }, maxWaitTimeInMs: 100 }));
      st.consumers.push(c);
      const r = await step(st, 'connect', c.connect(), 4000);
      if (!(r instanceof Error)) {
        await step(st, 'sub', c.subscribe({ topics: [SHARED[0]] }), 2000);
        await step(st, 'run', c.run({ eachMessage: async () => {} }), 2000);
        await sleep(R.int(200, 600));
      }
      await close(st, 'disconnect', c);
    } else {
      const a = track(st, kafka.admin());
      await step(st, 'connect', a.connect(), 4000);
      await step(st, 'listTopics', a.listTopics(), 3000);
      await close(st, 'disconnect', a);
    }
  }

  async function runCase(R, st) {
    const k = R.rand();
    const kind = k < 0.25 ? 'producer' : k < 0.37 ? 'tx' : k < 0.67 ? 'consumer' : k < 0.9 ? 'admin' : 'failure';
    st.trace.push(kind);
    await { producer: producerCase, tx: transactionCase, consumer: consumerCase, admin: adminCase, failure: failureCase }[kind](R, st);
  }

  // What a case leaves on the broker: its topics (made by it, by the quiet
  // admin or by the broker on first use) and its groups, all named after it.
  async function removeLeftovers(cid) {
    const topics = await withTimeout(qadmin.listTopics(), 2000);
    const mine = Array.isArray(topics) ? topics.filter((t) => t.includes(cid)) : [];
    if (mine.length) await withTimeout(qadmin.deleteTopics({ topics: mine, timeout: 3000 }), 3500);
    const groups = await withTimeout(qadmin.listGroups(), 2000);
    const gs = groups && Array.isArray(groups.groups) ? groups.groups.map((g) => g.groupId).filter((g) => g.includes(cid)) : [];
    if (gs.length) await withTimeout(qadmin.deleteGroups(gs), 2000);
  }

  const deadPort = await cap.freePort();
  let slow = 0;
  for (let i = 0; i < args.cases; i++) {
    if (ONLY && !ONLY.has(i)) continue;
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    Math.random = cap.seededRandom(`${args.seed}-${i}-math`); // kafkajs's retry jitter
    const cid = `c${String(i).padStart(5, '0')}`;
    const st = { id: i, cid, trace: [], clients: [], consumers: [], closed: new Set(), ntopics: 0, servers: [], deadPort };
    log.caseId = cid;
    const tc = Date.now();
    try {
      const r = await Promise.race([runCase(R, st), sleep(CASE_LIMIT_MS).then(() => 'timeout')]);
      if (r === 'timeout') { st.trace.push('CASE-TIMEOUT'); slow++; }
    } catch (e) {
      st.trace.push(`THROW ${e && e.message}`);
    }
    // what the case left connected (a step timed out) goes now, still in the case
    const open = st.clients.filter((c) => !st.closed.has(c));
    if (open.length) { st.trace.push(`open:${open.length}`); await withTimeout(Promise.all(open.map((c) => swallow(c.disconnect()))), 3000); }
    log.endCase();
    // A consumer that crashes while the application disconnects it may
    // restart afterwards (kafkajs sets its restart timer once its own
    // disconnect is done), and crash and restart again: such a consumer,
    // should it crash (its restart timer is set right after the event),
    // join its group or fetch again, is disconnected for good, outside any
    // case.
    for (const c of st.consumers) {
      const kill = () => { setImmediate(() => { swallow(c.disconnect()); }); };
      for (const ev of ['CRASH', 'GROUP_JOIN', 'FETCH_START']) c.on(c.events[ev], kill);
    }
    const took = Date.now() - tc;
    for (const s of st.servers) s.close();
    proxy.cut();
    await removeLeftovers(cid);
    if (VERBOSE) process.stderr.write(`${cid} ${took}ms ${st.trace.join(' ')}\n`);
  }
  await log.finish();
  if (VERBOSE) {
    for (const [k, v] of [...errs.entries()].sort((a, b) => b[1] - a[1])) process.stderr.write(`${String(v).padStart(5)} ${k}\n`);
    for (const [k, v] of [...foreignBy.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stderr.write(`${String(v).padStart(5)} late: ${k}\n`);
  }
  await withTimeout(qadmin.disconnect(), 2000);
  cleanup();
  process.stderr.write(`${log.summary()}; ${foreign} entries of earlier cases dropped, ${slow} cases cut at ${CASE_LIMIT_MS / 1000} s, ` +
    `in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
