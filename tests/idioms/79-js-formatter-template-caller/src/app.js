'use strict';
const log = require('./log');
const { formatAccess, formatTiming, formatError } = require('./format');

const routes = {
  '/menu': () => ({ status: 200, body: '["soup","bread"]' }),
  '/order': (req) => {
    if (!req.user) throw new TypeError('anonymous orders are disabled');
    return { status: 201, body: `{"order":"${req.id}"}` };
  },
};

function handle(req) {
  const route = routes[req.url];
  let res;
  try {
    res = route ? route(req) : { status: 404, body: '' };
  } catch (err) {
    log.error(formatError(req, err));
    res = { status: 500, body: 'oops' };
  }
  log.info(formatAccess(req, res));
  log.debug(formatTiming(req, req.elapsed));
  return res;
}

module.exports = { handle, setLevel: log.setLevel };
