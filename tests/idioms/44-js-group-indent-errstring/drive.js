const H = require('recorder');
H.setup(__dirname + '/src');
const { build } = require('./src/build');
(async () => {
  for (const [c, fs] of [['a.ts', 'b.ts'], ['x.bad'], ['c.ts', 'y.bad']].entries()) {
    H.case(c);
    await build(fs);
  }
  H.write();
})();
