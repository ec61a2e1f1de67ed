const H = require('recorder');
H.setup(__dirname + '/src');
const { series, measure } = require(H.compiled('assay'));
const { Spectrometer } = require(H.compiled('instrument'));
const s = (id, transmitted) => ({ id, transmitted });
const cases = [
  ['deuterium', '/dev/ttyS0', [[s('A1', 0.5), s('A2', 0.25)]], null],
  ['tungsten', '/dev/ttyS1', [[s('B1', 0.004), s('B2', 0.8)], [s('B3', 1.5)]], null],
  ['xenon', '/dev/ttyS2', [[s('C1', 0.1)]], '/dev/ttyS2'],
];
(async () => {
  for (const [c, [lamp, port, runs, held]] of cases.entries()) {
    H.case(c);
    if (held) {
      // another assay holds the port while this series runs
      const other = Spectrometer.open(held);
      await series(lamp, port, runs);
      other[Symbol.dispose]();
    } else {
      await series(lamp, port, runs);
    }
  }
  H.write();
})();
