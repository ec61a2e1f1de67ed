const H = require('recorder');
H.setup(__dirname + '/src');
const { Boiler } = require(H.compiled('boiler'));
[
  ['B-100', 0, [55]],
  ['B-200', 2, [95, 60]],
  ['B-300', 5, [10]],
].forEach(([id, failures, flows], c) => {
  H.case(c);
  const b = new Boiler(id, failures);
  for (const f of flows) b.setFlow(f);
  if (!b.ignite()) b.shutdown('lockout');
});
H.write();
