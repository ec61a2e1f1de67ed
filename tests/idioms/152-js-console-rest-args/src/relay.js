'use strict';
const { debug, trace } = require('./log');

class Relay {
  constructor(name, limit) {
    this.name = name;
    this.limit = limit;
    this.queue = [];
    debug('relay', name, 'ready, limit', limit);
  }

  push(topic, payload) {
    if (this.queue.length >= this.limit) {
      debug('dropping %s: queue at %d', topic, this.queue.length, 'items');
      return false;
    }
    this.queue.push({ topic, payload });
    trace(`queued ${topic}`, 'with', payload.length, 'bytes');
    return true;
  }

  flush() {
    if (!this.queue.length) debug('nothing queued for', this.name);
    while (this.queue.length) {
      const { topic } = this.queue.shift();
      trace('sent', topic, 'to', this.name);
    }
    debug('flushed; idle');
  }
}

module.exports = { Relay };
