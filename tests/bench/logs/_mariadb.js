'use strict';
/*
 * The MariaDB server a Node.js generator of this directory runs its cases
 * on (gen_sequelize.js, gen_mikroorm.js): Debian's mariadbd started as a
 * child process on a throw-away data dir (on /dev/shm when writable), a
 * private Unix socket and a free 127.0.0.1 port, with an `app` user that
 * may do anything and a `reader` that may only read; killed, and its dir
 * removed, by stop().
 *
 *   const { MariaDB, freePort } = require('./_mariadb');
 *   const server = new MariaDB('sequelize');
 *   await server.start(require('mysql2/promise'));   // the generator's mysql2
 */
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { tempBase, freePort } = require('./_capture');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function findBin(names) {
  const dirs = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].concat((process.env.PATH || '').split(':'));
  for (const n of names) for (const d of dirs) { const p = path.join(d, n); if (d && fs.existsSync(p)) return p; }
  return null;
}

class MariaDB {
  // name: the generator's (the temp dir's name); lockWaitTimeout: seconds a
  // statement waits for a row lock before the server fails it.
  constructor(name, { lockWaitTimeout = 3 } = {}) {
    this.lockWaitTimeout = lockWaitTimeout;
    this.dir = fs.mkdtempSync(path.join(tempBase(), `pmrag-${name}-`));
    this.sock = path.join(this.dir, 'mysqld.sock');
    this.proc = null;
  }

  async start(mysql) {
    const install = findBin(['mariadb-install-db', 'mysql_install_db']);
    const server = findBin(['mariadbd', 'mysqld']);
    if (!install || !server) throw new Error('mariadb-install-db or mariadbd not found (apt-get install mariadb-server)');
    const data = path.join(this.dir, 'data');
    const r = spawnSync(install, ['--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal',
      '--skip-test-db'], { encoding: 'utf8', timeout: 120000 });
    if (r.status !== 0) throw new Error(`${install} failed: ${r.stdout}${r.stderr}`);
    this.port = await freePort();
    this.proc = spawn(server, ['--no-defaults', `--datadir=${data}`, `--socket=${this.sock}`, `--port=${this.port}`,
      '--bind-address=127.0.0.1', '--user=root', `--pid-file=${path.join(this.dir, 'mysqld.pid')}`,
      `--log-error=${path.join(this.dir, 'error.log')}`, '--skip-log-bin', '--skip-name-resolve',
      '--innodb-flush-log-at-trx-commit=0', '--innodb-doublewrite=0', '--innodb-buffer-pool-size=64M',
      `--innodb-lock-wait-timeout=${this.lockWaitTimeout}`, '--performance-schema=OFF', '--max-connections=400', '--table-open-cache=400'],
    { stdio: 'ignore' });
    this.proc.on('error', () => {});
    let last;
    for (let k = 0; k < 300; k++) {
      try {
        this.admin = await mysql.createConnection({ socketPath: this.sock, user: 'root', multipleStatements: true });
        this.admin.on('error', () => {});
        break;
      } catch (e) { last = e; await sleep(50); }
      if (this.proc.exitCode !== null) break;
    }
    if (!this.admin) {
      let err = '';
      try { err = fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8').split('\n').slice(-5).join('\n'); } catch (e) { /* none */ }
      throw new Error(`mariadbd did not start: ${last && last.message}\n${err}`);
    }
    for (const host of ['localhost', '127.0.0.1']) {
      await this.admin.query(`CREATE USER 'app'@'${host}' IDENTIFIED BY 'app-secret'`);
      await this.admin.query(`GRANT ALL PRIVILEGES ON *.* TO 'app'@'${host}'`);
      await this.admin.query(`CREATE USER 'reader'@'${host}' IDENTIFIED BY 'reader-secret'`);
      await this.admin.query(`GRANT SELECT ON *.* TO 'reader'@'${host}'`);
    }
  }

  async threads(db) {
    const [rows] = await this.admin.query(
      "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND USER IN ('app', 'reader') ORDER BY ID", [db]);
    return rows.map((x) => x.ID);
  }

  async kill(db) {
    const ids = await this.threads(db);
    for (const id of ids) { try { await this.admin.query(`KILL CONNECTION ${id}`); } catch (e) { /* gone */ } }
    return ids.length;
  }

  stop() { // synchronous (also from the 'exit' handler)
    try { if (this.admin) this.admin.destroy(); } catch (e) { /* ignore */ }
    try { if (this.proc && this.proc.exitCode === null) this.proc.kill('SIGKILL'); } catch (e) { /* gone */ }
    try { fs.rmSync(this.dir, { recursive: true, force: true }); } catch (e) { /* ignore */ }
  }
}

module.exports = { MariaDB, freePort };
