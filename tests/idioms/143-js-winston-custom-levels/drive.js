const H = require('recorder');
H.setup(__dirname + '/src');
const { Monitor } = require('./src/monitor');
// message column: the line of the code's printf format
[
  ['clinic-a', ['F1'], 'reading', [['F1', 0, 4.5], ['F1', 10, 9.2], ['F1', 20, 6.0]]],
  ['pharmacy', ['F1', 'F2'], 'notice', [['F2', 0, 1.0], ['F2', 15, 0.5], ['F2', 40, 0.8], ['F2', 50, 4.0], ['F3', 50, 5.0]]],
  ['depot', ['C9'], 'info', [['C9', 0, 12.0], ['C9', 30, 11.0]]],
].forEach(([site, units, level, readings], c) => {
  H.case(c);
  const m = new Monitor(H.stream(), site, units, level);
  for (const r of readings) m.feed(...r);
});
H.write();
