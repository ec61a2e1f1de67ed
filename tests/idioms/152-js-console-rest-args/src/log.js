'use strict';

// The module's own debug helpers: console's methods handed everything the
// caller passes, after a tag of their own.
const debug = (...args) => {
  if (process.env.RELAY_QUIET) return;
  console.error('[relay]', ...args);
};

function trace(...args) {
  console.log(...args);
}

module.exports = { debug, trace };
