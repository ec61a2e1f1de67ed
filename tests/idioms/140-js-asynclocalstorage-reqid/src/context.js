'use strict';
const { AsyncLocalStorage } = require('async_hooks');

// The request being served, visible to every function it awaits.
const store = new AsyncLocalStorage();
let seq = 0;

function withRequest(member, fn) {
  seq += 1;
  return store.run({ id: `req-${seq}`, member }, fn);
}

module.exports = { store, withRequest, reset: () => { seq = 0; } };
