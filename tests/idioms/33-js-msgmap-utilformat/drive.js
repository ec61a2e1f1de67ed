const H = require('recorder');
H.setup(__dirname + '/src');
const api = require('./src/api');
[['u1', true, 'ann', 10], ['u2', false, 'guest', 10], ['u3', true, 'bob', 500]].forEach(([id, ex, u, sz], c) => {
  H.case(c);
  api.get(id, ex);
  api.post(u, 'doc', sz);
});
H.write();
