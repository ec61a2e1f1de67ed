const H = require('recorder');
H.setup(__dirname + '/src');
// message column = pino's "msg" field (the child's msgPrefix included)
require('./src/log').use({ write: (s) => { H.record(JSON.parse(s).msg); return true; } });
const { Uploader } = require('./src/uploader');
(async () => {
  for (const [c, [bucket, files, retries]] of [['media', [['a.png', 300], ['b.mov', 5000]], 0], ['logs', [['x.log', 20]], 2], ['backup', [['db.tar', 9000]], 1]].entries()) {
    H.case(c);
    const u = new Uploader(bucket);
    for (const [k, s] of files) await u.upload(k, s);
    if (retries) await u.retry(files[0][0], retries);
  }
  H.write();
})();
