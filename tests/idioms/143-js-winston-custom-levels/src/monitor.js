'use strict';
const { make } = require('./logger');
const { Fridge } = require('./fridge');

class Monitor {
  constructor(stream, site, units, level) {
    this.logger = make(stream, site, level);
    this.fridges = new Map(units.map((u) => [u, new Fridge(this.logger, u)]));
    this.logger.info('monitoring %d fridge(s)', units.length);
  }

  feed(unit, minute, celsius) {
    const fridge = this.fridges.get(unit);
    if (!fridge) {
      this.logger.log('error', `reading for unknown unit ${unit} ignored`);
      return;
    }
    if (fridge.record(minute, celsius) === 'alarm') this.quarantine(unit);
  }

  quarantine(unit) {
    this.fridges.delete(unit);
    this.logger.log({ level: 'notice', message: `unit ${unit} taken out of service` });
  }
}

module.exports = { Monitor };
