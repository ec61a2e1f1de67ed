const H = require('recorder');
H.setup(__dirname + '/src', { skip: ['log.js'] });
const { Relay } = require('./src/relay');
[['alpha', 2, [['a/1', 'xyz'], ['a/2', 'hello'], ['a/3', 'no room']]],
  ['beta', 5, [['b/1', '']]],
  ['gamma', 1, [['c/1', 'one'], ['c/2', 'two']]]].forEach(([name, limit, msgs], c) => {
  H.case(c);
  const r = new Relay(name, limit);
  for (const [t, p] of msgs) r.push(t, p);
  r.flush();
  r.flush();
});
H.write();
