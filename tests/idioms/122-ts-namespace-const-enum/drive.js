const H = require('recorder');
H.setup(__dirname + '/src');
const { Buoy } = require(H.compiled('buoy'));
[
  [{ id: 'B-101', battery: 80, waveM: 1.2, windKn: 9, offsetM: 20 }, { id: 'B-102', battery: 15, waveM: 2.75, windKn: 14, offsetM: 35 }],
  [{ id: 'B-201', battery: 64, waveM: 7.4, windKn: 41, offsetM: 210 }],
  [{ id: 'B-301', battery: 12, waveM: 6.6, windKn: 35, offsetM: 60 }, { id: 'B-302', battery: 90, waveM: 0.4, windKn: 3, offsetM: 151 }],
].forEach((readings, c) => {
  H.case(c);
  for (const r of readings) Buoy.report(r);
  Buoy.Fleet.summary(readings);
});
H.write();
