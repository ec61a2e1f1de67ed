const H = require('recorder');
// report() fills the fault's text and logs it: its callers emit
H.setup(__dirname + '/src', { skip: ['report'] });
const { LockerBank } = require(H.compiled('bank'));
// deposits: [parcel, cm, day, door jams]; pickups: [locker number, the code of deposit N or a wrong code, day, seconds open]
[
  ['STN', [40, 60], [['p1', 30, 1], ['p2', 55, 1]], [[1, 0, 2], [2, '0000', 2], [2, 1, 3, 120]]],
  ['MALL', [30], [['p3', 80, 1], ['p4', 20, 1, 3]], []],
  ['UNI', [50, 50], [['p5', 45, 1]], [[1, 0, 9]]],
  ['HUB', [60, 60, 90], [['p6', 90, 2], ['p7', 50, 2], ['p8', 70, 2]], [[1, '1111', 3], [1, '2222', 3], [1, 1, 3, 75]]],
].forEach(([site, sizes, deposits, pickups], c) => {
  H.case(c);
  const bank = new LockerBank(site, sizes);
  const codes = deposits.map(([p, cm, day, jams]) => bank.deposit(p, cm, day, jams));
  for (const [n, code, day, open] of pickups) bank.pickup(`${site}-${n}`, typeof code === 'number' ? codes[code] : code, day, open);
});
H.write();
