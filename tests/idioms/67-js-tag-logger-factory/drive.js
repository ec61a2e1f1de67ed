const H = require('recorder');
// make-log.js makes pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['make-log.js'] });
const { restock, audit } = require('./src/inventory');
[[['A-1', 5]], [['B-2', 80], ['C-3', 12]], [['D-4', 51]]].forEach((items, c) => {
  H.case(c);
  for (const [s, q] of items) restock(s, q);
  audit(items.map(([s]) => s));
});
H.write();
