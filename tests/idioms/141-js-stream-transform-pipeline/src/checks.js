'use strict';
const { Transform } = require('stream');

// Drops readings no sensor could have made.
class Plausible extends Transform {
  constructor(limits) {
    super({ objectMode: true });
    this.limits = limits;
    this.dropped = 0;
  }

  _transform(r, encoding, callback) {
    const [lo, hi] = this.limits.temp;
    if (Number.isNaN(r.temp) || r.temp < lo || r.temp > hi) {
      this.dropped += 1;
      console.warn('%s %s: temperature %s out of range, dropped', r.station, r.time, r.temp);
      return callback();
    }
    if (r.rain < 0) return callback(new Error(`negative rainfall at ${r.station} ${r.time}`));
    callback(null, r);
  }
}

module.exports = { Plausible };
