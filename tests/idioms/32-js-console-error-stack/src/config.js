'use strict';

class ConfigError extends Error {
  constructor(file, reason) {
    super(`invalid config ${file}: ${reason}`);
    this.name = 'ConfigError';
  }
}

function parse(file, text) {
  if (!text.trim()) throw new ConfigError(file, 'empty file');
  return JSON.parse(text);
}

function load(file, text) {
  console.log('loading %s', file);
  try {
    const cfg = parse(file, text);
    console.log('loaded %d keys from %s', Object.keys(cfg).length, file);
  } catch (err) {
    console.error(err);
  }
}

module.exports = { load };
