'use strict';
const util = require('util');
const debuglog = util.debuglog('workerpool');

class WorkerPool {
  constructor(size, opts = {}) {
    this.size = size;
    if (opts.legacyQueue) {
      process.emitWarning('The legacyQueue option is deprecated, use queue: "fifo"', 'DeprecationWarning', 'WP001');
    }
    debuglog('pool of %d workers created', size);
  }

  run(task) {
    debuglog('dispatching task %s', task);
    if (this.size < 2) {
      process.emitWarning(`pool size ${this.size} may starve long tasks`);
    }
  }
}

module.exports = { WorkerPool };
