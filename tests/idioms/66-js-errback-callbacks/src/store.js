'use strict';

class KvStore {
  constructor() {
    this.data = new Map();
  }

  get(key, cb) {
    setImmediate(() => {
      if (!this.data.has(key)) {
        const err = new Error(`key ${key} not found`);
        err.code = 'ENOKEY';
        return cb(err);
      }
      cb(null, this.data.get(key));
    });
  }

  set(key, value, cb) {
    process.nextTick(() => {
      if (typeof value !== 'number') return cb(new TypeError(`value for ${key} must be a number`));
      this.data.set(key, value);
      cb(null);
    });
  }
}

module.exports = { KvStore };
