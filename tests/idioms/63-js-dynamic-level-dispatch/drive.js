const H = require('recorder');
// levels.js holds pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['levels.js'] });
const { probe, report } = require('./src/health');
[[['api', 40], ['db', 350]], [['cache', 5000]], [['web', 12], ['queue', 2200], ['auth', 90]]].forEach((svcs, c) => {
  H.case(c);
  const r = {};
  for (const [n, ms] of svcs) r[n] = probe(n, ms);
  report(r);
});
H.write();
