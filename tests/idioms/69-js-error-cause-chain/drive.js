const H = require('recorder');
H.setup(__dirname + '/src');
const { syncAll, pickMirror } = require('./src/sync');
(async () => {
  for (const [c, [tables, mirrors]] of [[['users', 'locks'], ['eu1']], [['tmp_x'], ['us1', 'us2']], [['orders', 'tmp_y', 'lock_queue'], ['ap1']]].entries()) {
    H.case(c);
    syncAll(tables);
    await pickMirror(mirrors);
  }
  H.write();
})();
