'use strict';

function onRetry(job, attempt) {
  console.info(`job ${job.id} will be retried (attempt ${attempt})`);
}

function attach(queue) {
  queue.on('drop', (job, limit) => console.warn('dropped job %s: queue %s is full (%d)', job.id, queue.name, limit));
  queue.on('retry', onRetry);
  queue.on('warning', (w) => console.warn(`[${queue.name}] ${w.message}`));
  queue.once('drained', (n) => {
    console.log(`${queue.name}: drained ${n} job${n === 1 ? '' : 's'}`);
  });
}

module.exports = { attach };
