const H = require('recorder');
H.setup(__dirname + '/src');
const m = require(H.compiled('server'));
(async () => {
  for (const [c, p] of [8080, 9090, 3000].entries()) {
    H.case(c);
    const s = m.default(p);
    await m.shutdown(s, 'SIGTERM');
    m.hooks.afterStop('api');
  }
  H.write();
})();
