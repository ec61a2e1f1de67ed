const H = require('recorder');
H.setup(__dirname + '/src');
// util.deprecate warns through process.emitWarning: node prints "(node:PID) [code] DeprecationWarning: msg"
// on the next tick. Record the warnings from the 'warning' event, as node prints them but for the pid,
// with the truth from the warning's own stack: its first frame under src/, the deprecated function's caller.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  const at = w.stack.split('\n').find((l) => l.includes(H.src + '/'));
  const [, f, l] = at.match(/\((.*):(\d+):\d+\)/) || at.match(/at (.*):(\d+):\d+/);
  H.recordAt(`(node:PID) ${w.code ? '[' + w.code + '] ' : ''}${w.name}: ${w.message}`, f, +l);
});
const { importSheet } = require('./src/sheet');
(async () => {
  const cases = [
    ['north', ['Harbour St 4', 'Market Sq 1'], false],
    ['south', ['Old Mill Rd', 'Elm Way 9', 'Quay 2'], true],
    ['west', ['market sq 1', 'Pier 7'], true],
  ];
  for (const [c, [region, addresses, legacy]] of cases.entries()) {
    H.case(c);
    importSheet(region, addresses, { legacy });
    await new Promise((r) => setImmediate(r));
  }
  H.write();
})();
