'use strict';
const fs = require('fs');
const path = require('path');

class FsStore {
  constructor(dir) {
    this.dir = dir;
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      console.log(`fs-store: created directory ${path.basename(dir)}`);
    }
    console.log(`store: opened ${path.basename(dir)}`);
  }

  file(key) {
    return path.join(this.dir, encodeURIComponent(key));
  }

  put(key, value) {
    const data = JSON.stringify(value);
    fs.writeFileSync(this.file(key), data);
    console.log(`store: put ${key} (${Buffer.byteLength(data)} bytes)`);
  }

  get(key) {
    if (!fs.existsSync(this.file(key))) {
      console.log(`store: get ${key} -> miss`);
      return undefined;
    }
    return JSON.parse(fs.readFileSync(this.file(key), 'utf8'));
  }

  delete(key) {
    try {
      fs.unlinkSync(this.file(key));
      console.log(`store: deleted ${key}`);
    } catch (err) {
      console.warn(`store: cannot delete ${key}: ${err.code}`);
    }
  }
}

module.exports = { FsStore };
