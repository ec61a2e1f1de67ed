'use strict';

function timings(results) {
  const bySuite = {};
  for (const r of results) {
    const s = (bySuite[r.file] ??= { tests: 0, ms: 0 });
    s.tests++;
    s.ms += r.ms;
  }
  return bySuite;
}

function reportFailures(failed) {
  console.group(`failures (${failed.length})`);
  for (const f of failed) {
    console.error(`${f.name}: ${f.error.message}`);
    console.dir({ expected: f.error.expected, actual: f.error.actual, at: f.error.at }, { depth: 1 });
  }
  console.groupEnd();
}

function report(run, results, { slowMs = 500 } = {}) {
  console.group(`run #${run}`);
  console.table(results.map((r) => ({ test: r.name, status: r.status, ms: r.ms })));
  const slow = results.filter((r) => r.ms > slowMs);
  if (slow.length) {
    console.warn(`${slow.length} tests slower than ${slowMs} ms:`);
    console.table(timings(slow), ['tests', 'ms']);
  }
  const failed = results.filter((r) => r.status === 'fail');
  if (failed.length) reportFailures(failed);
  console.groupEnd();
  console.log(`run #${run}: ${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0;
}

module.exports = { report };
