'use strict';
const makeLog = (tag) => (...args) => console.log(`[${tag}]`, ...args);

function createLogger(ns, { verbose = false } = {}) {
  return {
    info: (msg, ...a) => console.log(`${ns} INFO ${msg}`, ...a),
    debug: (msg, ...a) => {
      if (verbose) console.log(`${ns} DEBUG ${msg}`, ...a);
    },
    child: (sub) => createLogger(`${ns}:${sub}`, { verbose }),
  };
}

module.exports = { makeLog, createLogger };
