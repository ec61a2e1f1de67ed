'use strict';
const logger = require('./log');

const LIMITS = { temp: 40, humidity: 85, co2: 1200 };

class Ingest {
  constructor(site) {
    this.site = site;
    this.log = logger.child({ site });
    this.accepted = 0;
  }

  push(sensor, kind, value) {
    const log = this.log.child({ sensor, kind });
    if (!(kind in LIMITS)) {
      log.warn({ value }, 'unknown reading kind %s dropped', kind);
      return;
    }
    this.accepted++;
    log.debug({ value }, 'reading accepted');
    if (value > LIMITS[kind]) {
      log.error({ value, limit: LIMITS[kind] }, 'reading %s over threshold at %s', `${value}`, this.site);
    }
  }

  flush() {
    this.log.info({ accepted: this.accepted }, `flushed ${this.accepted} readings`);
    logger.info('batch for %s committed', this.site);
  }
}

module.exports = { Ingest };
