const H = require('recorder');
H.setup(__dirname + '/src');
const { finish } = require('./src/ci');
[{ id: 'b1', seconds: 12, failed: [], artifacts: [['app.tar', 2048]], cached: false },
  { id: 'b2', seconds: 95, failed: ['lint', 'docs'], artifacts: [['app.tar', 4096], ['docs.zip', 512]], cached: false },
  { id: 'b3', seconds: 3, failed: [], artifacts: [['app.tar', 0]], cached: true },
  { id: 'b4', seconds: 4, failed: [], artifacts: [], cached: true }].forEach((b, c) => {
  H.case(c);
  finish(b);
});
H.write();
