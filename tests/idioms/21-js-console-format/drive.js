const H = require('recorder');
H.setup(__dirname + '/src');
const { Queue } = require('./src/lib/queue');
[['jobs', 2], ['mail', 0], ['ev', 5]].forEach(([n, s], c) => {
  H.case(c);
  const q = new Queue(n, s);
  q.push({ id: c, kind: 'x' });
  q.drain(c + 3);
});
H.write();
