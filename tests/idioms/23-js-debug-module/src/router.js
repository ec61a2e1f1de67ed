'use strict';
const debug = require('debug')('app:router');
const dbg = require('debug');
const log = dbg('app:router:match');

function compile(routes) {
  debug('compiling %d routes: %O', routes.length, routes);
  return routes.map((r) => ({ path: r, re: new RegExp('^' + r + '$') }));
}

function match(table, url) {
  for (const r of table) {
    if (r.re.test(url)) {
      log('%s matched %o', url, r.path);
      return r;
    }
  }
  debug('no route for %j', { url });
  return null;
}

function dispatch(table, url) {
  const r = match(table, url);
  debug(`dispatch ${url} -> ${r ? r.path : 404}`);
  const sub = debug.extend('dispatch');
  sub('done in %dms', 3);
}

module.exports = { compile, dispatch };
