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
// process warnings are printed by node on the next tick as "(node:PID) [code] Type: message":
// record them from the 'warning' event, with the truth from the warning's own stack.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  const at = w.stack.split('\n').find((l) => l.includes(H.src + '/'));
  const [, f, l] = at.match(/\((.*):(\d+):\d+\)/) || at.match(/at (.*):(\d+):\d+/);
  H.recordAt(`(node:PID) ${w.code ? '[' + w.code + '] ' : ''}${w.name}: ${w.message}`, f, +l);
});
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
