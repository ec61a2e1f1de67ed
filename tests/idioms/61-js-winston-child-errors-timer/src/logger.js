'use strict';
const winston = require('winston');
const { combine, errors, printf, splat } = winston.format;

const line = printf(({ level, message, component = 'core', durationMs }) =>
  `${level.toUpperCase()} ${component}: ${message}${durationMs === undefined ? '' : ` (${durationMs}ms)`}`);

function make(stream) {
  return winston.createLogger({
    level: 'debug',
    format: combine(errors({ stack: false }), splat(), line),
    transports: [new winston.transports.Stream({ stream })],
  });
}

module.exports = { make };
