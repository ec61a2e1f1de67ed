const H = require('recorder');
H.setup(__dirname + '/src');
const { Depot } = require('./src/depot');
[
  ['North', [{ type: 'tram', id: 'T1', seats: 60, extra: 2 }, { type: 'bus', id: 'B7', seats: 40 }],
    [{ id: 'T1', line: '4', km: 38 }, { id: 'B7', line: '12', km: 55 }]],
  ['South', [{ type: 'tram', id: 'T2', seats: 60 }, { type: 'bus', id: 'B8', seats: 45, extra: 10 }, { type: 'bus', seats: 30 }],
    [{ id: 'T2', couple: 1, line: '6' }, { id: 'T2', couple: 1 }, { id: 'T2', line: '9' }, { id: 'B8', line: '3' }, { id: 'B9', line: '3' }]],
  ['Harbour', [{ type: 'tram', id: 'T3', seats: 80, extra: 1 }], [{ id: 'T3', couple: 2, line: '1', km: 21 }]],
].forEach(([name, records, plan], c) => {
  H.case(c);
  const d = new Depot(name);
  d.load(records);
  d.roster(plan);
  d.summary();
});
H.write();
