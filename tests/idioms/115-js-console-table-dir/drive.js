const H = require('recorder');
H.setup(__dirname + '/src');
const { report } = require('./src/report');
const fail = (message, expected, actual, at) => ({ message, expected, actual, at });
[
  [['adds totals', 'pass', 12, 'cart.test'], ['applies coupon', 'pass', 40, 'cart.test']],
  [['parses dates', 'pass', 800, 'date.test'], ['rejects feb 30', 'fail', 5, 'date.test', fail('expected an error', 'RangeError', null, { line: 14, col: 3 })],
    ['formats ISO', 'pass', 650, 'format.test']],
  [['sync inbox', 'fail', 1200, 'mail.test', fail('timed out', 'done', 'pending', { line: 88, col: 9 })],
    ['send draft', 'fail', 30, 'mail.test', fail('wrong recipient', ['ann@x.org'], ['bob@x.org'], { line: 41, col: 5 })]],
].forEach((rows, c) => {
  H.case(c);
  report(100 + c, rows.map(([name, status, ms, file, error]) => ({ name, status, ms, file, error })));
});
H.write();
