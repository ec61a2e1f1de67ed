'use strict';

class SchemaError extends Error {
  constructor(field, expected) {
    super(`field "${field}" must be ${expected}`);
    this.name = 'SchemaError';
    this.field = field;
  }
}

class LimitError extends Error {
  constructor(n) {
    super('too many items: ' + n + ' (max 10)');
    this.name = 'LimitError';
  }
}

module.exports = { SchemaError, LimitError };
