'use strict';

class MemoryStore {
  constructor(name) {
    this.map = new Map();
    console.log(`store: opened ${name}`);
  }

  put(key, value) {
    const data = JSON.stringify(value);
    this.map.set(key, data);
    console.log(`store: put ${key} (${Buffer.byteLength(data)} bytes)`);
  }

  get(key) {
    if (!this.map.has(key)) {
      console.log(`store: get ${key} -> miss`);
      return undefined;
    }
    return JSON.parse(this.map.get(key));
  }

  delete(key) {
    if (this.map.delete(key)) console.log(`store: deleted ${key}`);
    else console.warn(`store: cannot delete ${key}: ENOENT`);
  }
}

module.exports = { MemoryStore };
