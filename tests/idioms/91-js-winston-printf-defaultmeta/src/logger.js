'use strict';
const { createLogger, format, transports } = require('winston');

const line = format.printf(({ timestamp, level, message, service, tenant, invoice }) => {
  const scope = [service, tenant, invoice].filter(Boolean).join('/');
  return `${timestamp} [${scope}] ${level.toUpperCase()}: ${message}`;
});

const logger = createLogger({
  level: process.env.BILLING_LOG_LEVEL || 'info',
  defaultMeta: { service: 'billing' },
  format: format.combine(format.timestamp({ format: 'YYYY-MM-DD HH:mm:ss' }), format.splat(), line),
  transports: [new transports.Console({ stderrLevels: ['error'] })],
});

module.exports = logger;
