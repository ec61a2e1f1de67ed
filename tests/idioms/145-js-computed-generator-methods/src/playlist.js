'use strict';
const { kHistory, kRemember, DESCRIBE } = require('./events');

// A radio show's playlist: iterable, with generator methods and methods
// whose names are computed.
class Playlist {
  constructor(show, tracks) {
    this.show = show;
    this.tracks = tracks;
    this[kHistory] = [];
  }

  *[Symbol.iterator]() {
    for (const t of this.tracks) {
      if (t.banned) {
        console.warn(`${this.show}: "${t.title}" is on the banned list, skipped`);
        continue;
      }
      yield t;
    }
    console.debug(`${this.show}: end of playlist`);
  }

  *withJingles(every) {
    let n = 0;
    for (const t of this) {
      if (n > 0 && n % every === 0) {
        console.debug(`${this.show}: jingle after ${n} tracks`);
        yield { title: 'station ident', seconds: 8, jingle: true };
      }
      n += 1;
      yield t;
    }
  }

  [DESCRIBE](track) {
    return `${track.artist} - ${track.title}`;
  }

  [kRemember](track) {
    this[kHistory].push(track);
    if (this[kHistory].length > 3) console.log(`${this.show}: history trimmed to the last 3 tracks`);
    this[kHistory] = this[kHistory].slice(-3);
  }

  get ['lastPlayed']() {
    const t = this[kHistory][this[kHistory].length - 1];
    return t ? this[DESCRIBE](t) : '(nothing yet)';
  }
}

module.exports = { Playlist };
