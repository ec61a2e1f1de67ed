const H = require('recorder');
// logger.js holds the Logger class, a pure logging wrapper: its callers emit the messages
H.setup(__dirname + '/src', { skip: ['logger.js'] });
const { wire, bill } = require('./src/app');
[
  [false, [{ customer: 'Ames', email: 'ames@example.org', lines: [['tea', 2, 4.5]] }]],
  [false, [{ customer: 'Birch', email: 'birch(at)example.org', lines: [['mug', 1, 9]] }, { customer: 'Cole', email: 'cole@example.org', lines: [] }]],
  [true, [{ customer: 'Dunn', email: 'dunn', lines: [['pot', 1, 30], ['lid', 1, 5]] }, { customer: 'Eads', email: 'eads@example.org', lines: [['cup', 6, 3.5]] }]],
].forEach(([quiet, orders], c) => {
  H.case(c);
  bill(wire({ quiet }), orders);
});
H.write();
