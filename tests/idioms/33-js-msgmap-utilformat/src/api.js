'use strict';
const util = require('util');
const { MESSAGES } = require('./messages');

const LOCAL = {
  tooLarge: 'Payload of %d bytes exceeds %d',
};

function get(id, exists) {
  if (!exists) {
    console.warn(MESSAGES.notFound, id);
    return null;
  }
  const line = util.format('GET %s -> 200 (%dms)', id, 4);
  console.log(line);
  return { id };
}

function post(user, kind, size) {
  if (size > 100) {
    console.error(util.format(LOCAL.tooLarge, size, 100));
    return;
  }
  if (user === 'guest') {
    const msg = util.format(MESSAGES.forbidden, user, 'create ' + kind);
    console.error(msg);
    return;
  }
  console.info(MESSAGES['created'], kind, 42);
}

module.exports = { get, post };
