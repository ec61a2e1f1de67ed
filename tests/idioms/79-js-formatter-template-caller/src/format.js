'use strict';

function clf(date) {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n) => String(n).padStart(2, '0');
  return `${p(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())} +0000`;
}

function formatAccess(req, res) {
  const length = res.body ? Buffer.byteLength(res.body) : '-';
  return `${req.ip} - ${req.user || '-'} [${clf(req.start)}] "${req.method} ${req.url} HTTP/${req.httpVersion}" ${res.status} ${length}`;
}

const formatTiming = (req, ms) => `${req.method} ${req.url} served in ${ms.toFixed(2)} ms`;

function formatError(req, err) {
  return `request ${req.id} (${req.method} ${req.url}) threw ${err.name}: ${err.message}`;
}

module.exports = { formatAccess, formatTiming, formatError };
