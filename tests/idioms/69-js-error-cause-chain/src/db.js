'use strict';

class DbError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'DbError';
  }
}

function acquire(table, ms) {
  throw new Error(`lock wait timeout after ${ms}ms on ${table}`);
}

function query(table) {
  if (table.startsWith('lock')) {
    try {
      acquire(table, table.length * 10);
    } catch (err) {
      throw new DbError(`table ${table} is locked by another session`, { cause: err });
    }
  }
  if (table.startsWith('tmp_')) throw new RangeError(`no such table: ${table}`);
  return table.length;
}

async function ping(mirror) {
  await null;
  throw new Error(`mirror ${mirror} did not answer`);
}

module.exports = { DbError, query, ping };
