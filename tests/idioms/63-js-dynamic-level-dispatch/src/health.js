'use strict';
const logger = require('./levels');

const LEVEL_OF = { ok: 'info', slow: 'warn', down: 'error' };

function probe(name, ms) {
  const state = ms > 1000 ? 'down' : ms > 200 ? 'slow' : 'ok';
  console[LEVEL_OF[state]]('probe %s: %s in %dms', name, state, ms);
  return state;
}

function report(results) {
  for (const [name, state] of Object.entries(results)) {
    const lvl = state === 'ok' ? 'info' : 'warn';
    logger[lvl](`${name} is ${state}`);
  }
  const down = Object.keys(results).filter((n) => results[n] === 'down');
  (down.length ? console.error : console.log)('report: %d services checked, %d down', Object.keys(results).length, down.length);
  if (down.length) logger[LEVEL_OF.down]('paging on-call for ' + down.join(', '));
}

module.exports = { probe, report };
