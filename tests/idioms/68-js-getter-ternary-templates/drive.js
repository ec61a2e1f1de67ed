const H = require('recorder');
H.setup(__dirname + '/src');
const { Parcel } = require('./src/parcel');
const { ship, attempt, summary } = require('./src/courier');
[[['P1', 3, 1, [true]]], [['P2', 25, 4, [false, false]], ['P3', 8, 2, [true]]], [['P4', 40, 1, [false]], ['P5', 1, 3, [false, true]], ['P6', 12, 6, [true]]]].forEach((ps, c) => {
  H.case(c);
  const parcels = ps.map(([id, w, n]) => new Parcel(id, w, n));
  parcels.forEach((p, i) => {
    ship(p);
    for (const home of ps[i][3]) attempt(p, home);
  });
  summary(parcels);
});
H.write();
