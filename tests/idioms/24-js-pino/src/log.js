'use strict';
const pino = require('pino');
let dest = process.stdout;
exports.setDestination = (d) => { dest = d; exports.logger = pino({ level: 'debug', base: null, timestamp: false }, dest); };
exports.logger = pino({ level: 'debug' });
