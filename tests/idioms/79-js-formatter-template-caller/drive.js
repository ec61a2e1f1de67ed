const H = require('recorder');
// log.js holds pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['log.js'] });
const { handle, setLevel } = require('./src/app');
[['info', [['GET', '/menu', null], ['POST', '/order', 'ann']]], ['debug', [['POST', '/order', null], ['GET', '/drinks', 'bob']]], ['debug', [['GET', '/menu', 'cy'], ['POST', '/order', 'cy'], ['GET', '/', null]]]].forEach(([level, reqs], c) => {
  H.case(c);
  setLevel(level);
  reqs.forEach(([method, url, user], i) => {
    handle({ id: `r${c}${i}`, ip: `10.9.${c}.${i + 1}`, user, method, url, httpVersion: '1.1', start: new Date(Date.UTC(2026, 11, 6, 10, c, i * 3)), elapsed: 1.5 + i * 2.25 });
  });
});
H.write();
