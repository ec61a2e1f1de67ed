'use strict';

// One vaccine fridge: 2-8 °C, an excursion once a reading leaves the band,
// an alarm once it stays out for too long.
class Fridge {
  constructor(logger, unit, maxOutMin = 30) {
    this.log = logger.child({ unit });
    this.unit = unit;
    this.maxOutMin = maxOutMin;
    this.outSince = null;
  }

  record(minute, celsius) {
    this.log.reading('%d min: %s °C', minute, celsius.toFixed(1));
    const inBand = celsius >= 2 && celsius <= 8;
    if (inBand) {
      if (this.outSince !== null) {
        this.log.notice('back in range after %d min', minute - this.outSince);
        this.outSince = null;
      }
      return 'ok';
    }
    if (this.outSince === null) {
      this.outSince = minute;
      this.log.excursion('%s °C is outside 2-8 °C', celsius.toFixed(1));
      return 'excursion';
    }
    const out = minute - this.outSince;
    if (out >= this.maxOutMin) {
      this.log.alarm('out of range for %d min, stock must be quarantined', out);
      return 'alarm';
    }
    return 'excursion';
  }
}

module.exports = { Fridge };
