'use strict';
const path = require('path');

function human(n) {
  return n > 1024 ? (n / 1024).toFixed(1) + ' kB' : n + ' B';
}

class Uploader {
  constructor(bucket) {
    this.bucket = bucket;
  }

  start(file, size) {
    console.log(`Uploading ${path.basename(file)} (${human(size)}) to s3://${this.bucket}/`);
  }

  part(i, total, ms) {
    console.log('part ' + i + '/' + total + ' of bucket ' + this.bucket + ' sent in ' + ms + 'ms, ' + (total - i) + ' left');
  }

  finish(file, ok) {
    const status = ok ? 'done' : 'FAILED';
    console.log(`[${this.bucket}] ${file}: ${status} at ${new Date(0).toISOString().slice(0, 10)}`);
    if (!ok) console.error(`Upload of ${file} failed after ${3} retries
  check credentials for bucket ${this.bucket}`);
  }
}

module.exports = { Uploader };
