'use strict';
const winston = require('winston');
const { combine, label, printf, splat } = winston.format;

// The cold chain's own severities, most urgent first: winston makes a
// method of each (logger.alarm, logger.excursion, logger.reading).
const LEVELS = { alarm: 0, error: 1, excursion: 2, notice: 3, info: 4, reading: 5 };

function make(stream, site, level = 'reading') {
  return winston.createLogger({
    levels: LEVELS,
    level,
    format: combine(
      label({ label: site }),
      splat(),
      printf(({ level: lv, message, label: where, unit }) => `${where}${unit ? '/' + unit : ''} ${lv.toUpperCase()} ${message}`),
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
}

module.exports = { make, LEVELS };
