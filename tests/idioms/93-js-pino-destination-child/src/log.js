'use strict';
const pino = require('pino');

// Synchronous writes to stdout's descriptor: nothing is lost when the process exits.
const destination = pino.destination({ dest: 1, sync: true });

const logger = pino(
  {
    level: process.env.TELEMETRY_LOG_LEVEL || 'info',
    base: { app: 'telemetry' },
    formatters: { level: (label) => ({ level: label }) },
  },
  destination,
);

module.exports = logger;
