'use strict';

function restore(store, entries, done) {
  let pending = entries.length;
  for (const [k, v] of entries) {
    store.set(k, v, (err) => {
      if (err) console.error('set %s failed: %s', k, err.message);
      else console.log('restored %s', k);
      if (--pending === 0) done();
    });
  }
}

function lookup(store, key, done) {
  store.get(key, function onValue(err, value) {
    if (err) {
      console.warn(`${err.code}: ${err.message}`);
      return done(err);
    }
    console.log('%s = %d', key, value);
    done(null, value);
  });
}

module.exports = { restore, lookup };
