'use strict';
// A leveled logger of the app: one line a message on stdout or stderr.
const levels = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold = levels.info;

function setLevel(name) {
  threshold = levels[name];
}

function write(level, msg) {
  if (levels[level] < threshold) return;
  const stream = levels[level] >= levels.warn ? process.stderr : process.stdout;
  stream.write(`${level.toUpperCase().padEnd(5)} ${msg}\n`);
}

module.exports = {
  setLevel,
  debug: (msg) => write('debug', msg),
  info: (msg) => write('info', msg),
  warn: (msg) => write('warn', msg),
  error: (msg) => write('error', msg),
};
