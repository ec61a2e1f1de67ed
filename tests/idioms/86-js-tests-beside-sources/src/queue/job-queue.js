'use strict';

class JobQueue {
  constructor(name, { concurrency = 1, maxAttempts = 3 } = {}) {
    this.name = name;
    this.concurrency = concurrency;
    this.maxAttempts = maxAttempts;
    this.pending = [];
    console.log(`queue ${name}: ready (concurrency ${concurrency})`);
  }

  add(id, work) {
    this.pending.push({ id, work, attempts: 0 });
    console.log(`queue ${this.name}: job ${id} added, ${this.pending.length} waiting`);
  }

  drain() {
    let done = 0;
    while (this.pending.length) {
      const job = this.pending.shift();
      if (this.attempt(job)) done++;
    }
    console.log(`queue ${this.name}: drained, ${done} jobs done`);
    return done;
  }

  attempt(job) {
    for (;;) {
      job.attempts++;
      try {
        const result = job.work(job.attempts);
        console.log(`job ${job.id} done after ${job.attempts} attempt(s): ${result}`);
        return true;
      } catch (err) {
        if (job.attempts >= this.maxAttempts) {
          console.error(`job ${job.id} failed for good: ${err.message}`);
          return false;
        }
        console.warn(`job ${job.id} attempt ${job.attempts} failed (${err.message}), retrying`);
      }
    }
  }
}

module.exports = { JobQueue };
