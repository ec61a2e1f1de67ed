'use strict';

const FORMATS = {
  tiny: ':method :url :status :res[content-length] - :response-time ms',
  combined: ':remote-addr ":method :url" :status ":user-agent"',
};

const tokens = {
  method: (req) => req.method,
  url: (req) => req.url,
  status: (req, res) => String(res.statusCode),
  'remote-addr': (req) => req.ip,
  'user-agent': (req) => req.headers['user-agent'] || '-',
  'response-time': (req, res) => res.ms.toFixed(1),
  res: (req, res, field) => String(res.headers[field] ?? '-'),
};

function compile(fmt) {
  return (req, res) => fmt.replace(/:([-\w]+)(?:\[([^\]]+)\])?/g, (_, name, arg) => tokens[name](req, res, arg));
}

function accessLog(name, stream = process.stdout) {
  const line = compile(FORMATS[name] || name);
  return (req, res, next) => {
    next();
    stream.write(line(req, res) + '\n');
  };
}

module.exports = { accessLog };
