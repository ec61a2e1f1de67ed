// The recorder of a JavaScript or TypeScript idiom's driver: every message
// the code under src/ writes, with its truth, the file and line of the
// call that emitted it.
//
//   const H = require('recorder');
//   H.setup(__dirname + '/src', { skip: ['logger.ts'] });  // before requiring the code
//   cases.forEach((args, c) => { H.case(c); ...run the code... });
//   H.write();
//
// Messages: what is written to process.stdout and process.stderr (console,
// npm debug, util.debuglog), one write one message, its last line break
// dropped; a logging library's output reaches the recorder through a
// destination the driver hands it (H.stream(), or an object whose write
// calls H.record with the part a log shipper would keep as the message).
// opts.transform(text) may rewrite a message (null drops it).
//
// Truth: the innermost frame of the stack, as the driver's node prints it
// (run with --enable-source-maps, a compiled TypeScript frame is its .ts
// line), in a file under src/ whose function is not a pure logging wrapper
// named in opts.skip (a function name, Class.method, a file relative to
// src/, or FILE:FUNCTION); the wrapper's caller is then the emitter. A
// message without such a frame fails H.write(), which names it (console
// swallows what its stream's write throws).
//
// H.write() puts log.csv (case,message) and log_truth.csv (the same and
// code.filepath, code.lineno) in the directory named by IDIOM_OUT, and
// lists the events on stdout. H.compiled(NAME) is the path of src/NAME.ts
// compiled by tests/idioms/run.sh.
'use strict';
const fs = require('fs');
const path = require('path');
const { csvRow } = require('../../bench/logs/_capture');

Error.stackTraceLimit = 200;
const H = { src: null, skip: new Set(), transform: null, events: [], lost: [], kase: '0' };
const out = process.env.IDIOM_OUT;
const stdoutWrite = process.stdout.write.bind(process.stdout);
const stderrWrite = process.stderr.write.bind(process.stderr);

// [file relative to src, line] of the emitter on the current stack, or null.
function truth() {
  for (const l of new Error().stack.split('\n').slice(1)) {
    const m = l.match(/^\s*at (?:async )?(?:(.*?) \((.*):(\d+):\d+\)|(.*):(\d+):\d+)$/);
    if (!m) continue;
    const fn = m[1] || '';
    let file = m[2] || m[4];
    if (file.startsWith('file://')) file = file.slice(7);
    if (!file.startsWith(H.src + path.sep)) continue;
    const rel = path.relative(H.src, file);
    const short = fn.split('.').pop();
    if ([fn, short, rel, rel + ':' + short].some((s) => H.skip.has(s))) continue;
    return [rel, +(m[3] || m[5])];
  }
  return null;
}

function push(text, where) {
  if (H.transform) text = H.transform(text);
  if (text === null || text === undefined || text === '') return;
  if (where) H.events.push([H.kase, text, where[0], where[1]]);
  else H.lost.push(text);
}

// Records text (its last line break dropped) as emitted by the caller.
H.record = (text) => push(String(text).replace(/\n$/, ''), truth());
// Records text as emitted at line of file (an absolute path), for a message
// whose stack is not the current one (a process warning's).
H.recordAt = (text, file, line) => push(text, [path.relative(H.src, file), line]);

H.setup = function (src, opts = {}) {
  H.src = path.resolve(src);
  for (const s of opts.skip || []) H.skip.add(s);
  H.transform = opts.transform || null;
  process.stdout.write = (s) => { H.record(s); return true; };
  process.stderr.write = (s) => { H.record(s); return true; };
};

// Process warnings (process.emitWarning, util.deprecate) are printed by
// node on the next tick as "(node:PID) [code] Type: message": records
// them so from the 'warning' event instead, the pid left out, with the
// truth from the warning's own stack (its first frame under src/).
H.recordWarnings = function () {
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    const at = w.stack.split('\n').find((l) => l.includes(H.src + '/'));
    const [, f, l] = at.match(/\((.*):(\d+):\d+\)/) || at.match(/at (.*):(\d+):\d+/);
    H.recordAt(`(node:PID) ${w.code ? '[' + w.code + '] ' : ''}${w.name}: ${w.message}`, f, +l);
  });
};

H.case = (c) => { H.kase = String(c); };

// A writable stream whose every chunk is a message.
H.stream = function () {
  const { Writable } = require('stream');
  return new Writable({ write(chunk, enc, cb) { H.record(chunk.toString()); cb(); } });
};

H.compiled = (name) => path.join(out, 'out', name);

function fail(why) {
  process.stderr.write = stderrWrite;
  console.error(`recorder: ${why}`);
  process.exit(1);
}

H.write = function () {
  if (H.lost.length) {
    fail(`no frame under ${H.src} (past the wrappers ${[...H.skip].join(', ') || 'none'}) emitted ` +
      H.lost.slice(0, 5).map((t) => JSON.stringify(t)).join(', '));
  }
  if (!out) fail('IDIOM_OUT names no directory for the log (tests/idioms/run.sh sets it)');
  const plain = [csvRow(['case', 'message'])];
  const truthful = [csvRow(['case', 'message', 'code.filepath', 'code.lineno'])];
  for (const [c, m, f, l] of H.events) {
    plain.push(csvRow([c, m]));
    truthful.push(csvRow([c, m, f, l]));
  }
  fs.writeFileSync(path.join(out, 'log.csv'), plain.join(''));
  fs.writeFileSync(path.join(out, 'log_truth.csv'), truthful.join(''));
  for (const [c, m, f, l] of H.events) stdoutWrite(`  [${c}] ${f}:${l}  ${JSON.stringify(m)}\n`);
};

module.exports = H;
