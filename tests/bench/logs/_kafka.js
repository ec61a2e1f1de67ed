'use strict';
/*
 * The Apache Kafka broker a Node.js generator of this directory runs its
 * cases on (gen_kafkajs.js): one KRaft node, both broker and controller, run
 * by the machine's OpenJDK 17 from the jars that `deploy/deps.sh --kafka`
 * puts in <deps>/kafka/VERSION (the version pinned by tests/kafka/pom.xml,
 * the same broker as the `kafka` tests' tests/kafka/broker.sh), on free
 * ports of 127.0.0.1, its data and its own log in a temp dir (on /dev/shm
 * when writable). stop() kills it and removes the dir; it is also called at
 * exit.
 *
 *   const { KafkaBroker } = require('./_kafka');
 *   const broker = new KafkaBroker('kafkajs', { props: ['auto.create.topics.enable=true'] });
 *   await broker.start();        // broker.bootstrap: '127.0.0.1:PORT'
 *   ...
 *   broker.stop();
 *
 * With `external: PORT`, the broker has a second client listener, EXTERNAL,
 * on a port of its own (broker.externalPort) but advertised at PORT: a
 * client that bootstraps on PORT is told to reach the broker at PORT, so a
 * proxy the generator runs there (to cut or stall connections) carries all
 * of that client's traffic, while the broker's own traffic to itself
 * (transaction markers) and a generator's quiet admin client use the
 * INTERNAL listener, broker.bootstrap, and never pass through the proxy.
 *
 * With `sasl: { user, password }`, a third client listener, SASL
 * (SASL_PLAINTEXT, at broker.saslBootstrap), takes PLAIN, SCRAM-SHA-256 and
 * SCRAM-SHA-512 for that one user (its SCRAM credentials written by the
 * storage formatter).
 *
 * The broker runs with a small heap, the serial collector and the client
 * compiler only, as tests/kafka/broker.sh runs it: its start-up dominates
 * on a machine of two cores, and the steady state is light.
 */
const fs = require('fs');
const net = require('net');
const path = require('path');
const crypto = require('crypto');
const { spawn, spawnSync } = require('child_process');
const { tempBase, freePort } = require('./_capture');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TOP = path.resolve(__dirname, '..', '..', '..');

// The pinned version (tests/kafka/pom.xml) and the directory of its jars,
// where deploy/deps.sh --kafka puts them (PMRAG_DEPS_DIR as there).
function kafkaJars() {
  const pom = fs.readFileSync(path.join(TOP, 'tests', 'kafka', 'pom.xml'), 'utf8');
  const m = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom);
  if (!m) throw new Error('no kafka.version in tests/kafka/pom.xml');
  const dir = path.join(process.env.PMRAG_DEPS_DIR || path.join(TOP, '.deps'), 'kafka', m[1]);
  if (!fs.existsSync(path.join(dir, '.stamp'))) {
    throw new Error(`no Apache Kafka ${m[1]} jars in ${dir} (deploy/deps.sh --kafka)`);
  }
  return { version: m[1], dir };
}

// Is something listening on 127.0.0.1:port?
function probe(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

class KafkaBroker {
  // name: the generator's (the temp dir's name); props: more
  // server.properties lines; heap: the JVM's -Xmx.
  constructor(name, { props = [], heap = '384m', external = null, sasl = null } = {}) {
    this.props = props;
    this.external = external;
    this.sasl = sasl;
    this.heap = heap;
    this.dir = fs.mkdtempSync(path.join(tempBase(), `pmrag-${name}-`));
    this.proc = null;
    this._exit = () => this.stop();
    process.on('exit', this._exit);
  }

  _jvm(extra) {
    return ['java', [`-Xmx${this.heap}`, '-Xms64m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true', ...extra]];
  }

  async start() {
    const jars = kafkaJars();
    this.version = jars.version;
    const cp = path.join(jars.dir, '*');
    this.port = await freePort();
    do this.cport = await freePort(); while (this.cport === this.port);
    this.bootstrap = `127.0.0.1:${this.port}`;
    let listeners = `INTERNAL://127.0.0.1:${this.port},CONTROLLER://127.0.0.1:${this.cport}`;
    let advertised = `INTERNAL://127.0.0.1:${this.port}`;
    if (this.external) {
      do this.externalPort = await freePort(); while ([this.port, this.cport, this.external].includes(this.externalPort));
      listeners += `,EXTERNAL://127.0.0.1:${this.externalPort}`;
      advertised += `,EXTERNAL://127.0.0.1:${this.external}`;
    }
    const saslProps = [];
    const scram = [];
    if (this.sasl) {
      const taken = [this.port, this.cport, this.external, this.externalPort];
      do this.saslPort = await freePort(); while (taken.includes(this.saslPort));
      this.saslBootstrap = `127.0.0.1:${this.saslPort}`;
      listeners += `,SASL://${this.saslBootstrap}`;
      advertised += `,SASL://${this.saslBootstrap}`;
      const { user, password } = this.sasl;
      const q = (v) => JSON.stringify(String(v)); // a JAAS option value: a quoted string
      saslProps.push('listener.name.sasl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
        `listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${user}=${q(password)};`,
        'listener.name.sasl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
        'listener.name.sasl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;');
      for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) scram.push('--add-scram', `${m}=[name=${user},password=${password}]`);
    }
    const conf = path.join(this.dir, 'server.properties');
    fs.writeFileSync(conf, [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${this.cport}`,
      `listeners=${listeners}`,
      `advertised.listeners=${advertised}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=INTERNAL',
      'listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,SASL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
      ...saslProps,
      `log.dirs=${path.join(this.dir, 'data')}`,
      // one node: the internal topics cannot be replicated
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=4',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'transaction.state.log.num.partitions=4',
      // short group sessions and no delay before the first rebalance: a
      // case's consumers join, rebalance and leave within a second or two
      'group.min.session.timeout.ms=1000',
      'group.initial.rebalance.delay.ms=0',
      // few threads: the machine may have two cores
      'num.network.threads=2',
      'num.io.threads=2',
      'background.threads=2',
      'log.cleaner.enable=false',
      'auto.leader.rebalance.enable=false',
      ...this.props,
    ].join('\n') + '\n');
    // The broker's own log: warnings and errors only, in the temp dir (what
    // stop() shows of it when the start fails).
    const l4j = path.join(this.dir, 'log4j2.properties');
    fs.writeFileSync(l4j, [
      'status = warn',
      'appender.f.type = File',
      'appender.f.name = f',
      `appender.f.fileName = ${path.join(this.dir, 'server.log')}`,
      'appender.f.layout.type = PatternLayout',
      'appender.f.layout.pattern = [%d] %p %m (%c)%n',
      'rootLogger.level = warn',
      'rootLogger.appenderRef.f.ref = f',
    ].join('\n') + '\n');
    // One cluster id: 16 random bytes, URL-safe base64 (passed as
    // --cluster-id=ID, since it may begin with a dash).
    const id = crypto.randomBytes(16).toString('base64url');
    const [java, fmtArgs] = this._jvm(['-Xmx128m', `-Dlog4j2.configurationFile=${l4j}`, '-cp', cp,
      'kafka.tools.StorageTool', 'format', '--ignore-formatted', `--cluster-id=${id}`, '-c', conf, ...scram]);
    const f = spawnSync(java, fmtArgs, { encoding: 'utf8', timeout: 120000 });
    if (f.status !== 0) throw new Error(`kafka StorageTool format failed: ${(f.stdout + f.stderr).slice(-800)}`);
    const [java2, args] = this._jvm([`-Dlog4j2.configurationFile=${l4j}`, '-cp', cp, 'kafka.Kafka', conf]);
    const out = fs.openSync(path.join(this.dir, 'stdout.log'), 'a');
    this.proc = spawn(java2, args, { stdio: ['ignore', out, out] });
    fs.closeSync(out);
    this.proc.on('error', () => {});
    for (let k = 0; k < 1200; k++) {
      if (this.proc.exitCode !== null) break;
      if (await probe(this.port) && (!this.external || await probe(this.externalPort)) &&
        (!this.sasl || await probe(this.saslPort))) return;
      await sleep(100);
    }
    const tail = (f2) => { try { return fs.readFileSync(path.join(this.dir, f2), 'utf8').split('\n').slice(-6).join('\n'); } catch (e) { return ''; } };
    throw new Error(`the Kafka broker did not start:\n${tail('stdout.log')}\n${tail('server.log')}`);
  }

  stop() { // synchronous (also from the 'exit' handler)
    try { if (this.proc && this.proc.exitCode === null) this.proc.kill('SIGKILL'); } catch (e) { /* gone */ }
    try { fs.rmSync(this.dir, { recursive: true, force: true }); } catch (e) { /* ignore */ }
  }
}

module.exports = { KafkaBroker, kafkaJars, freePort };
