'use strict';

class Logger {
  constructor(scope) {
    this.scope = scope;
  }

  child(name) {
    return new Logger(`${this.scope}.${name}`);
  }

  info(message) {
    console.log(`INFO  [${this.scope}] ${message}`);
  }

  warn(message) {
    console.error(`WARN  [${this.scope}] ${message}`);
  }
}

module.exports = { Logger };
