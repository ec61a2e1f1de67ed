'use strict';
const winston = require('winston');
const { combine, label, printf, splat } = winston.format;

function make(stream) {
  return winston.createLogger({
    level: 'debug',
    format: combine(splat(), label({ label: 'mailer' }), printf(({ level, message, label }) => `[${label}] ${level}: ${message}`)),
    transports: [new winston.transports.Stream({ stream })],
  });
}
module.exports = { make };
