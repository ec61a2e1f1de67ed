const H = require('recorder');
H.setup(__dirname + '/src');
const { JobQueue } = require('./src/queue');
const { attach } = require('./src/monitor');
[['mail', 2, [{ id: 'm1' }, { id: 'm2', flaky: true }, { id: 'm3' }]], ['thumbs', 5, [{ id: 't1' }]], ['export', 1, [{ id: 'e1', flaky: true }, { id: 'e2' }]]].forEach(([name, limit, jobs], c) => {
  H.case(c);
  const q = new JobQueue(name, limit);
  attach(q);
  for (const j of jobs) q.add(j);
  q.drain();
  q.drain();
});
H.write();
