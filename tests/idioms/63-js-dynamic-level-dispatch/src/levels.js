'use strict';
// A tiny leveled logger: each method prefixes its level.
module.exports = {
  info: (msg) => console.log(`INFO  ${msg}`),
  warn: (msg) => console.warn(`WARN  ${msg}`),
  error: (msg) => console.error(`ERROR ${msg}`),
};
