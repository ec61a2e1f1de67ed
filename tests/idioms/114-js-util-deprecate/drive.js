const H = require('recorder');
H.setup(__dirname + '/src');
// util.deprecate warns through process.emitWarning: recorded as node prints the warning, the pid
// left out, at its first frame under src/, the deprecated function's caller.
H.recordWarnings();
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
