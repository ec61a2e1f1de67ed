'use strict';
const { Logger } = require('./logger');

// A small service container: factories registered by name, one instance each.
class Container {
  constructor() {
    this.factories = new Map();
    this.instances = new Map();
  }

  register(name, factory) {
    this.factories.set(name, factory);
    this.instances.delete(name);
    return this;
  }

  resolve(name) {
    if (!this.instances.has(name)) {
      const factory = this.factories.get(name);
      if (!factory) throw new Error(`no service named ${name}`);
      this.instances.set(name, factory(this));
    }
    return this.instances.get(name);
  }
}

const container = new Container().register('logger', () => new Logger('shop'));

module.exports = { Container, container };
