const H = require('recorder');
H.setup(__dirname + '/src');
const { createServer } = require('./src/server');
[['tiny', [['GET', '/'], ['POST', '/api/orders']]], ['combined', [['GET', '/missing/page'], ['GET', '/img/a.png']]], ['tiny', [['DELETE', '/missing']]]].forEach(([fmt, reqs], c) => {
  H.case(c);
  const serve = createServer(fmt);
  for (const [method, url] of reqs) serve({ method, url, ip: '10.0.0.' + (c + 1), headers: c === 1 ? { 'user-agent': 'curl/8.5' } : {} });
});
H.write();
