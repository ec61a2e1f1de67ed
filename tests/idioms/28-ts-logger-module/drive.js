const H = require('recorder');
// the wrapper functions of logger.ts are not the emitters: their callers are
H.setup(__dirname + '/src', { skip: ['logger.ts'] });
const { Syncer } = require(H.compiled('sync'));
[['main', 3, true], ['dev', 0, false], ['fix', 1, true]].forEach(([b, n, ok], c) => {
  H.case(c);
  const s = new Syncer('origin' + c);
  s.pull(b, n);
  s.push(b, ok);
});
H.write();
