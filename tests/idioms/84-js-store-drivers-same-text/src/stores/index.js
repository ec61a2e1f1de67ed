'use strict';

// file:DIR or memory:NAME
function openStore(url) {
  const [scheme, rest] = url.split(/:(.*)/s);
  switch (scheme) {
    case 'file': {
      const { FsStore } = require('./fs-store');
      return new FsStore(rest);
    }
    case 'memory': {
      const { MemoryStore } = require('./memory-store');
      return new MemoryStore(rest);
    }
    default:
      throw new Error(`unknown store scheme ${scheme}`);
  }
}

module.exports = { openStore };
