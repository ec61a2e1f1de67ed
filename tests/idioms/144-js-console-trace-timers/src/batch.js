'use strict';
const { render } = require('./render');

class Batch {
  constructor(id, cache, sizes) {
    this.id = id;
    this.cache = cache;
    this.sizes = sizes;
  }

  run(images) {
    const label = `batch-${this.id}`;
    console.time(label);
    let made = 0;
    for (const [i, image] of images.entries()) {
      for (const size of this.sizes) {
        if (this.cache.get(image.src, size)) continue;
        try {
          this.cache.put(image.src, size, render(image, size));
          made += 1;
        } catch (err) {
          console.error(`batch ${this.id}: ${err.message}`);
        }
      }
      if (i === 1) console.timeLog(label, `${made} thumbnails so far`);
    }
    console.timeEnd(label);
    console.log(`batch ${this.id}: ${made} thumbnail(s) made for ${images.length} image(s)`);
    return made;
  }
}

module.exports = { Batch };
