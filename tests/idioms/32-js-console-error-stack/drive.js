const H = require('recorder');
H.setup(__dirname + '/src');
const { load } = require('./src/config');
[['a.json', '{"x":1}'], ['b.json', '  '], ['c.json', '{oops'], ['d.json', '']].forEach(([f, t], c) => {
  H.case(c);
  load(f, t);
});
H.write();
