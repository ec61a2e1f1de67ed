'use strict';
const { Transform } = require('stream');

// Splits the text into lines and lines into readings: station, time, °C, mm.
class ParseLines extends Transform {
  constructor(station) {
    super({ readableObjectMode: true });
    this.station = station;
    this.rest = '';
    this.lineNo = 0;
  }

  _transform(chunk, encoding, callback) {
    const lines = (this.rest + chunk.toString()).split('\n');
    this.rest = lines.pop();
    console.debug('%s: chunk of %d bytes, %d whole line(s)', this.station, chunk.length, lines.length);
    for (const line of lines) this.parse(line);
    callback();
  }

  _flush(callback) {
    if (this.rest.trim()) {
      console.debug(`${this.station}: last line has no newline`);
      this.parse(this.rest);
    }
    callback();
  }

  parse(line) {
    this.lineNo += 1;
    if (line.startsWith('#') || !line.trim()) return;
    const [time, temp, rain] = line.split(',');
    if (rain === undefined) {
      console.warn(`${this.station} line ${this.lineNo}: expected 3 fields in "${line}"`);
      return;
    }
    this.push({ station: this.station, time, temp: Number(temp), rain: Number(rain) });
  }
}

module.exports = { ParseLines };
