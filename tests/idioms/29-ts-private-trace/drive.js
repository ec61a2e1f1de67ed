const H = require('recorder');
// TaskQueue.trace / Task.trace and tracing.trace are forwarders; their callers emit the text
H.setup(__dirname + '/src', { skip: ['tracing.ts', 'TaskQueue.trace', 'Task.trace', 'trace'] });
const { TaskQueue } = require(H.compiled('queue'));
[['resize-photos', false], ['send-report', true], ['rebuild-index', true]].forEach(([name, ok], c) => {
  H.case(c);
  const q = new TaskQueue();
  const t = q.add(name);
  t.start();
  if (ok) { t.finish(); q.next(); } else t.fail('disk full');
});
H.write();
