'use strict';

class RateLimiter {
  constructor(name, max) {
    this.name = name;
    this.max = max;
    this.used = 0;
  }

  take(client) {
    this.used++;
    console.count(`${this.name} requests`);
    console.assert(this.used <= this.max, 'limiter %s over budget: %d > %d', this.name, this.used, this.max);
    if (client.startsWith('bot')) console.count('bot hits');
  }

  reset() {
    console.countReset(`${this.name} requests`);
    console.log('limiter %s reset after %d requests', this.name, this.used);
    this.used = 0;
  }
}

module.exports = { RateLimiter };
