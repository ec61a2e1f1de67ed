'use strict';
const bunyan = require('bunyan');

let root = bunyan.createLogger({ name: 'cache' });
exports.useStream = (s) => { root = bunyan.createLogger({ name: 'cache', level: 'trace', streams: [{ stream: s, level: 'trace' }] }); };

class LruCache {
  constructor(cap) {
    this.cap = cap;
    this.log = root.child({ component: 'lru', cap });
    this.log.info('lru cache ready');
  }

  get(key, hit) {
    if (hit) this.log.trace({ key }, 'hit');
    else this.log.debug('miss for key %s', key);
  }

  evict(keys) {
    this.log.warn({ count: keys.length }, 'evicting %d keys: %s', keys.length, keys.join(','));
  }

  fail(err) {
    this.log.error(err, 'backend unavailable');
  }
}
exports.LruCache = LruCache;
