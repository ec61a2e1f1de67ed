const H = require('recorder');
H.setup(__dirname + '/src');
const { Lift } = require('./src/lift');
const { Panel } = require('./src/panel');
const { watch } = require('./src/safety');
[
  ['A', 5, { 0: 'lobby', 4: 'roof' }, false, [['call', 4], ['door', true], ['door', false, false]]],
  ['B', 3, { 0: 'G' }, true, [['call', 2], ['door', false, true], ['call', 0], ['door', true]]],
  ['C', 4, {}, false, [['call', 7], ['call', -1], ['call', 1]]],
].forEach(([name, floors, labels, trace, steps], c) => {
  H.case(c);
  const lift = new Lift(name, floors);
  new Panel(lift, labels);
  watch(lift, { trace });
  for (const [what, a, b] of steps) (what === 'call' ? lift.call(a) : lift.door(a, b));
});
H.write();
