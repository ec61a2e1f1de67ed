'use strict';

class Decibels {
  constructor(db) {
    this.db = db;
  }

  // `${gain}` reads "+3.0 dB", +gain and comparisons read the number
  [Symbol.toPrimitive](hint) {
    if (hint === 'number') return this.db;
    return `${this.db > 0 ? '+' : ''}${this.db.toFixed(1)} dB`;
  }
}

class Channel {
  constructor(number, label) {
    this.number = number;
    this.label = label;
  }

  toString() {
    return `ch${String(this.number).padStart(2, '0')}/${this.label}`;
  }
}

module.exports = { Decibels, Channel };
