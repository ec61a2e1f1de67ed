'use strict';
const { accessLog } = require('./accesslog');

function handler(req, res) {
  const found = !req.url.startsWith('/missing');
  res.statusCode = found ? 200 : 404;
  res.headers['content-length'] = found ? req.url.length * 100 : undefined;
  res.ms = req.url.length / 4;
  if (!found) console.warn('no route for %s %s', req.method, req.url);
}

function createServer(format) {
  const chain = [accessLog(format), accessLog(':method :url -> :status', process.stderr)];
  return (req) => {
    const res = { statusCode: 0, headers: {} };
    const run = (i) => (i < chain.length ? chain[i](req, res, () => run(i + 1)) : handler(req, res));
    run(0);
  };
}

module.exports = { createServer };
