'use strict';
const { DbError, query, ping } = require('./db');

function syncTable(t) {
  try {
    return query(t);
  } catch (err) {
    throw new DbError(`sync of ${t} failed`, { cause: err });
  }
}

function syncAll(tables) {
  for (const t of tables) {
    try {
      console.log('synced %s (%d rows)', t, syncTable(t));
    } catch (err) {
      console.error(`${err.message}: ${err.cause.message}`);
      for (let e = err.cause; e; e = e.cause) console.error('  caused by %s: %s', e.name, e.message);
    }
  }
}

async function pickMirror(mirrors) {
  try {
    return await Promise.any(mirrors.map(ping));
  } catch (err) {
    console.warn(`${err.errors.length} mirrors failed: ${err.message}`);
    err.errors.forEach((e) => console.warn(' - ' + e.message));
  }
}

module.exports = { syncAll, pickMirror };
