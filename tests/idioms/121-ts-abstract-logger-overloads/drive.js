const H = require('recorder');
// log/ holds the loggers, pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['log/base.ts', 'log/console.ts'] });
const { ConsoleLogger } = require(H.compiled('log/console'));
const { Garage } = require(H.compiled('garage'));
[
  ['info', 2, [['in', 'HH-AB 12', 0], ['in', 'B-XY 99', 10], ['out', 'HH-AB 12', 95], ['out', 'B-XY 99', 130]]],
  ['debug', 1, [['in', 'M-QQ 1', 0], ['in', 'K-LM 7', 5], ['out', 'M-QQ 1', 241], ['out', 'K-LM 7', 250]]],
  ['warn', 1, [['in', 'D-EF 3', 0], ['in', 'F-GH 4', 1], ['out', 'Z-ZZ 9', 30]]],
].forEach(([level, capacity, moves], c) => {
  H.case(c);
  const g = new Garage(new ConsoleLogger('garage', level), capacity);
  for (const [dir, plate, t] of moves) (dir === 'in' ? g.enter(plate, t) : g.leave(plate, t));
});
H.write();
