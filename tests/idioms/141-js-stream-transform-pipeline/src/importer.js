'use strict';
const { Readable, pipeline } = require('stream');
const { ParseLines } = require('./parse');
const { Plausible } = require('./checks');
const { DailyTotals } = require('./store');

function importStation(station, chunks, limits = { temp: [-40, 50] }) {
  return new Promise((resolve) => {
    const check = new Plausible(limits);
    const totals = new DailyTotals();
    pipeline(Readable.from(chunks), new ParseLines(station), check, totals, (err) => {
      if (err) console.error('import of %s failed: %s', station, err.message);
      else console.info('import of %s done (%d dropped)', station, check.dropped);
      resolve(!err);
    });
  });
}

module.exports = { importStation };
