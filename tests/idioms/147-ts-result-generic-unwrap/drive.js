const H = require('recorder');
H.setup(__dirname + '/src');
const { Dispatcher } = require(H.compiled('dispatch'));
[
  [null, [['o-1', 'eh1 1yz'], ['o-2', 'CF10  1EP']]],
  [{ lat: 52.4862, lon: -1.8904 }, [['o-3', 'M1 1AE'], ['o-4', 'not a code']]],
  [null, [['o-5', 'BT1 5GS'], ['o-6', '12345']]],
].forEach(([fallback, orders], c) => {
  H.case(c);
  const d = new Dispatcher(fallback || undefined);
  for (const [id, pc] of orders) d.route(id, pc);
  d.summary();
});
H.write();
