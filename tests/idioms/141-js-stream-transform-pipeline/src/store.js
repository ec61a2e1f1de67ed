'use strict';
const { Writable } = require('stream');

class DailyTotals extends Writable {
  constructor() {
    super({ objectMode: true });
    this.rows = 0;
    this.rain = 0;
    this.max = -Infinity;
  }

  _write(r, encoding, callback) {
    this.rows += 1;
    this.rain += r.rain;
    this.max = Math.max(this.max, r.temp);
    callback();
  }

  _final(callback) {
    console.log('stored %d readings: %s mm rain, max %s °C', this.rows, this.rain.toFixed(1), this.max);
    callback();
  }
}

module.exports = { DailyTotals };
