const H = require('recorder');
H.setup(__dirname + '/src');
const { importAll } = require('./src/validate');
const arr = (n) => Array.from({ length: n }, (_, i) => i);
[[{ id: 1, items: arr(2) }, { id: 'x', items: [] }], [{ id: 2, items: arr(12) }], [{ id: 3, items: arr(60) }, { id: 4, items: [] }]].forEach((docs, c) => {
  H.case(c);
  importAll(docs);
});
H.write();
