'use strict';
const pino = require('pino');

let root = pino({ level: 'debug' });
exports.use = (dest) => { root = pino({ level: 'debug', base: null, timestamp: false }, dest); };
exports.get = (component) => root.child({ component }, { msgPrefix: `[${component}] ` });
