const H = require('recorder');
H.setup(__dirname + '/src');
const { importStation } = require('./src/importer');
const cases = [
  ['Kew', ['# time,temp,rain\n06:00,11.5,0.0\n12:00,17', '.25,1.2\n18:00,14.0,3.5\n']],
  ['Ben Nevis', ['06:00,-3.0,0.4\n12:00,99.9,0.0\n', 'oops\n18:00,-5.5,2.0']],
  ['Lerwick', ['06:00,8.0,0.2\n12:00,9.0,-1.0\n18:00,7.5,0.0\n']],
  ['Valentia', ['06:00,n/a,0.0\n', '12:00,13.0,5.5\n']],
];
(async () => {
  for (const [c, [station, chunks]] of cases.entries()) {
    H.case(c);
    await importStation(station, chunks);
  }
  H.write();
})();
