'use strict';
// Runs in a worker thread: hashes the chunks it is handed and reports to its parent,
// which writes the log (a worker's own console output would reach it out of order).
const crypto = require('crypto');
const { parentPort, workerData } = require('worker_threads');

const { name, chunks } = workerData;
let bytes = 0;
for (const [i, chunk] of chunks.entries()) {
  if (!chunk) throw new Error(`chunk ${i} of ${name} is empty`);
  const digest = crypto.createHash('sha256').update(chunk).digest('hex').slice(0, 12);
  bytes += chunk.length;
  parentPort.postMessage({ level: 'debug', text: `chunk ${i}: ${chunk.length} bytes, sha256 ${digest}` });
}
parentPort.postMessage({ level: bytes > 64 ? 'warn' : 'info', text: `${name}: ${chunks.length} chunks, ${bytes} bytes hashed` });
