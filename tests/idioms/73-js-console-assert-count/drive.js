const H = require('recorder');
H.setup(__dirname + '/src');
const { RateLimiter } = require('./src/limiter');
[['search', 3, ['u1', 'bot-a', 'u2']], ['upload', 1, ['u3', 'u4']], ['login', 2, ['bot-b', 'bot-c', 'u5', 'u6']]].forEach(([n, max, clients], c) => {
  H.case(c);
  const l = new RateLimiter(n, max);
  for (const cl of clients) l.take(cl);
  l.reset();
  l.take('u0');
});
H.write();
