'use strict';
const util = require('util');
const { store } = require('./context');

// Every line carries the request id and member of the current request.
function prefix() {
  const ctx = store.getStore();
  return ctx ? `[${ctx.id} ${ctx.member}]` : '[-]';
}

function info(fmt, ...args) {
  console.log(`${prefix()} ${util.format(fmt, ...args)}`);
}

function warn(fmt, ...args) {
  console.warn(`${prefix()} ${util.format(fmt, ...args)}`);
}

module.exports = { info, warn };
