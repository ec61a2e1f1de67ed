'use strict';

class Queue {
  constructor(name, size) {
    this.name = name;
    this.size = size;
    console.log('queue %s created with capacity %d', name, size);
  }

  push(item) {
    if (this.size === 0) {
      console.warn('Queue full:', this.name, 'dropping', item.id);
      return false;
    }
    console.debug('push %j into %s', item, this.name);
    this.size--;
    return true;
  }

  drain(n) {
    console.info('draining %i items from %s (%f%% done)', n, this.name, 12.5);
    console.error('drain stats: %o', { name: this.name, left: this.size });
  }
}

module.exports = { Queue };
