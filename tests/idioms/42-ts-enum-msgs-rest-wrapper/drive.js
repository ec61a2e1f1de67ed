const H = require('recorder');
H.setup(__dirname + '/src', { skip: ['log', 'debugLog'] });
const { Migrator } = require(H.compiled('db'));
[['001_init', 4], ['002_users', 12], ['003_idx', 1]].forEach(([n, s], c) => {
  H.case(c);
  new Migrator().run(n, s);
});
H.write();
