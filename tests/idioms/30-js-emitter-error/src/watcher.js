'use strict';
const { EventEmitter } = require('events');

class Watcher extends EventEmitter {
  constructor(dir) {
    super();
    this.dir = dir;
  }

  scan(files) {
    for (const f of files) {
      if (f.startsWith('.')) {
        this.emit('error', new Error(`cannot watch hidden file ${f} in ${this.dir}`));
        continue;
      }
      this.emit('change', f);
    }
  }
}

function watch(dir, files) {
  const w = new Watcher(dir);
  w.on('change', (f) => console.log('changed: %s', f));
  w.on('error', (err) => {
    console.error('watcher error: ' + err.message);
  });
  w.on('error', onError);
  w.scan(files);
}

function onError(err) {
  console.error(err.message);
}

module.exports = { watch };
