'use strict';
const path = require('path');
const { Worker } = require('worker_threads');

function hashInWorker(id, name, chunks, { verbose = false } = {}) {
  return new Promise((resolve) => {
    const worker = new Worker(path.join(__dirname, 'hash-worker.js'), { workerData: { name, chunks } });
    worker.on('message', ({ level, text }) => {
      if (level === 'debug' && !verbose) return;
      (level === 'warn' ? console.warn : console.log)(`[hasher ${id}] ${text}`);
    });
    worker.on('error', (err) => {
      console.error(`hasher ${id} crashed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      if (code !== 0) console.warn(`hasher ${id} exited with code ${code}`);
      resolve(code);
    });
  });
}

async function hashAll(files, opts) {
  let failed = 0;
  for (const [i, [name, chunks]] of files.entries()) {
    if ((await hashInWorker(i + 1, name, chunks, opts)) !== 0) failed++;
  }
  console.log(`hashed ${files.length - failed} of ${files.length} files`);
}

module.exports = { hashAll };
