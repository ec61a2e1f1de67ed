'use strict';
const { get } = require('./log');

async function put(key, size) {
  await null;
  if (size > 1000) throw new Error(`object ${key} is ${size} bytes, over the 1000 byte limit`);
  return `etag-${size}`;
}

class Uploader {
  constructor(bucket) {
    this.bucket = bucket;
    this.log = get('uploader').child({ bucket });
  }

  upload(key, size) {
    this.log.debug({ key, size }, 'starting upload of %s', key);
    return put(key, size)
      .then((etag) => this.log.info({ etag }, `stored ${key} in ${this.bucket}`))
      .catch((err) => this.log.error({ err, key }, 'upload failed'));
  }

  async retry(key, attempts) {
    for (let i = 1; i <= attempts; i++) {
      this.log.warn({ attempt: i }, 'retrying %s (%d of %d)', key, i, attempts);
      await null;
    }
    get('audit').info('gave up on %s after %d attempts', key, attempts);
  }
}

module.exports = { Uploader };
