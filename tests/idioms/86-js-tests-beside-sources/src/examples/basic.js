'use strict';
// Example: three jobs, one of them flaky.
const { JobQueue } = require('../queue/job-queue');

const q = new JobQueue('example', { maxAttempts: 2 });
q.add(1, () => 'thumbnail.png');
q.add(2, (n) => {
  if (n === 1) throw new Error('timeout');
  return 'report.pdf';
});
q.add(3, () => 'mail sent');
const done = q.drain();
console.log(`example: ${done} jobs done, see the queue log above`);
