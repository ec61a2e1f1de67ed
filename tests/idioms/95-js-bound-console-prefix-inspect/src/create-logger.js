'use strict';

// Console methods bound to a prefix: the first argument of every line.
function createLogger(prefix, { debug = false } = {}) {
  return {
    info: console.log.bind(console, `[${prefix}]`),
    warn: console.warn.bind(console, `[${prefix}] warning:`),
    debug: debug ? console.debug.bind(console, `[${prefix}:debug]`) : () => {},
  };
}

module.exports = { createLogger };
