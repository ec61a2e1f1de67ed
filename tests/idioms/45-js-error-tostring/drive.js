const H = require('recorder');
H.setup(__dirname + '/src');
const { fetchAll } = require('./src/http');
[[['/a', 10], ['/slow', 5000]], [['/bad', 1]], [['/b', 3], ['/c', 2000], ['/bad2', 5]]].forEach((u, c) => {
  H.case(c);
  fetchAll(u);
});
H.write();
