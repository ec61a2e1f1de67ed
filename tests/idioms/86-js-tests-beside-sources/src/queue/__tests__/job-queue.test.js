'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { JobQueue } = require('../job-queue');

function captureConsole(fn) {
  const lines = [];
  const saved = { log: console.log, warn: console.warn, error: console.error };
  console.log = console.warn = console.error = (msg) => lines.push(msg);
  try {
    fn();
  } finally {
    Object.assign(console, saved);
  }
  return lines;
}

test('a job that succeeds is logged once', () => {
  const lines = captureConsole(() => {
    const q = new JobQueue('t1');
    q.add(7, () => 'ok');
    q.drain();
  });
  assert.ok(lines.includes('job 7 done after 1 attempt(s): ok'));
  assert.strictEqual(lines.at(-1), 'queue t1: drained, 1 jobs done');
});

test('a flaky job is retried', () => {
  let calls = 0;
  const lines = captureConsole(() => {
    const q = new JobQueue('t2', { maxAttempts: 2 });
    q.add(8, () => {
      if (++calls < 2) throw new Error('socket hang up');
      return 'second time';
    });
    q.drain();
  });
  assert.deepStrictEqual(lines.slice(2), [
    'job 8 attempt 1 failed (socket hang up), retrying',
    'job 8 done after 2 attempt(s): second time',
    'queue t2: drained, 1 jobs done',
  ]);
});

test('a job failing every time gives up', () => {
  const q = new JobQueue('t3', { maxAttempts: 1 });
  q.add(9, () => { throw new Error('disk full'); });
  console.log('job 9 should fail for good: disk full');
  assert.strictEqual(q.drain(), 0);
});
