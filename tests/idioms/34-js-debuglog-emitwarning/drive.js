if (process.env.NODE_DEBUG !== 'workerpool') {
  // NODE_DEBUG is read when node starts: run this script again with it set
  const r = require('child_process').spawnSync(process.execPath, process.execArgv.concat([__filename]), { env: { ...process.env, NODE_DEBUG: 'workerpool' }, stdio: 'inherit' });
  process.exit(r.status);
}
const H = require('recorder');
H.setup(__dirname + '/src', {
  // util.debuglog prints "WORKERPOOL <pid>: msg": a log shipper keeps it as is; strip only the pid
  transform: (t) => t.replace(/^(WORKERPOOL) \d+: /, '$1 PID: '),
});
// process warnings: recorded as node prints them, the pid left out
H.recordWarnings();
const { WorkerPool } = require('./src/pool');
(async () => {
  for (const [c, [size, legacy]] of [[4, false], [1, true], [8, true]].entries()) {
    H.case(c);
    const p = new WorkerPool(size, { legacyQueue: legacy });
    p.run('t' + c);
    await new Promise((r) => setImmediate(r));
  }
  H.write();
})();
