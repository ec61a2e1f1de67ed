const H = require('recorder');
H.setup(__dirname + '/src');
const { createRoot } = require('./src/log');
const { Depot } = require('./src/depot');
// message column = bunyan's "msg", after the child logger's component as a log shipper shows it
const root = createRoot({ write: (s) => { const r = JSON.parse(s); H.record(`${r.component || 'depot'}: ${r.msg}`); } }, 'debug');
const vans = { Leeds: 'van-3', York: 'van-7' };
[[{ id: 'P1', kg: 2, dest: 'Leeds' }, { id: 'P2', kg: 31, dest: 'York' }], [{ id: 'P3', kg: 5, dest: 'Hull' }], [{ id: 'P4', kg: 12, dest: 'York' }, { id: 'P5', kg: 40, dest: 'Derby' }, { id: 'P6', kg: 1, dest: 'Leeds' }]].forEach((parcels, c) => {
  H.case(c);
  new Depot(root, vans).receive(parcels);
});
H.write();
