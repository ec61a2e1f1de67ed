'use strict';

// Thumbnails already made, by source and size. A miss on a thumbnail that
// was made before is unexpected (it was evicted): console.trace shows who asked.
class ThumbCache {
  constructor() {
    this.entries = new Map();
    this.seen = new Set();
  }

  key(src, size) {
    return `${src}@${size}`;
  }

  get(src, size) {
    const key = this.key(src, size);
    const hit = this.entries.get(key);
    if (!hit && this.seen.has(key)) console.trace('thumb cache miss for %s at %dpx', src, size);
    return hit;
  }

  put(src, size, thumb) {
    const key = this.key(src, size);
    this.seen.add(key);
    this.entries.set(key, thumb);
  }

  evict(src) {
    for (const k of [...this.entries.keys()]) if (k.startsWith(src + '@')) this.entries.delete(k);
  }
}

module.exports = { ThumbCache };
