'use strict';
const { EventEmitter } = require('events');

class JobQueue extends EventEmitter {
  constructor(name, limit) {
    super();
    this.name = name;
    this.limit = limit;
    this.jobs = [];
  }

  add(job) {
    if (this.jobs.length >= this.limit) {
      this.emit('drop', job, this.limit);
      return;
    }
    this.jobs.push(job);
    if (job.flaky) this.emit('retry', job, 2);
    if (this.jobs.length === this.limit) {
      this.emit('warning', new Error(`queue ${this.name} reached its limit of ${this.limit}`));
    }
  }

  drain() {
    const n = this.jobs.length;
    this.jobs = [];
    this.emit('drained', n);
  }
}

module.exports = { JobQueue };
