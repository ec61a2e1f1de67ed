'use strict';
const { Decibels, Channel } = require('./units');

const LIMITS = { gain: [-60, 12], pan: [-100, 100] };

// The settings of a channel, every change logged as it is made.
function watched(channel, settings) {
  return new Proxy(settings, {
    set(target, key, value) {
      const [lo, hi] = LIMITS[key] || [-Infinity, Infinity];
      if (+value < lo || +value > hi) {
        console.warn(`${channel}: ${key} ${value} out of range [${lo}, ${hi}], kept ${target[key]}`);
        return true;
      }
      console.log(`${channel}: ${key} ${target[key]} -> ${value}`);
      target[key] = value;
      return true;
    },
    deleteProperty(target, key) {
      console.log(`${channel}: ${key} reset`);
      return delete target[key];
    },
  });
}

class Strip {
  #muted = false;

  constructor(number, label) {
    this.channel = new Channel(number, label);
    this.settings = watched(this.channel, { gain: new Decibels(0), pan: 0 });
  }

  get muted() {
    return this.#muted;
  }

  set muted(on) {
    if (on === this.#muted) {
      console.debug(`${this.channel} already ${on ? 'muted' : 'live'}`);
      return;
    }
    this.#muted = on;
    console.log(`${this.channel} ${on ? 'muted' : 'unmuted'} at ${this.settings.gain}`);
  }
}

module.exports = { Strip };
