'use strict';
/*
 * Shared capture machinery for the Node.js event-log generators in this
 * directory (the Node counterpart of _capture.py).  CommonJS, Node stdlib only.
 *
 * API
 *   const cap = require('./_capture');
 *   const log = new cap.EventLog(outPath, {
 *     indexDir,          // absolute dir that pmrag indexes; truth paths are
 *                        //   `<basename(indexDir)>/<path relative to indexDir>`
 *     wrappers: [['built/utils/debug.js', 'wrappedDebug']],
 *                        // pure logging wrappers: [truth path, function name or '*'];
 *                        //   their frames are skipped and the caller is the
 *                        //   emitter, with code.wrapped=1.  A name `@L:C` (or
 *                        //   `@L`) is the function, named or not, whose
 *                        //   definition begins at line L, column C of the file
 *                        //   as run: for an anonymous wrapper (an arrow another
 *                        //   function returns), which has no name to give
 *                        //   (V8's columns on a CommonJS module's first line
 *                        //   count its wrapper: keep to later lines)
 *     machinery: [dir or file, ...],
 *                        // extra logging machinery whose frames are skipped
 *                        //   (this file and hooked `debug` copies are added
 *                        //   automatically); never an emitter
 *     mapLocation: (file, line, column) => ({file, line, column}) | null,
 *                        // optional transform applied to every stack frame
 *                        //   (e.g. source maps: compiled .js -> .ts); null keeps
 *                        //   the frame unchanged
 *     qualname: (file, line, column) => ({function, qualname}) | null,
 *                        // optional override of the static qualname finder
 *     minEvents: 3,      // cases with fewer events are dropped
 *   });
 *   cap.hookDebug(log, rootDir, {enable: '*'});
 *                        // patch every copy of npm `debug` found in
 *                        //   rootDir/node_modules (nested copies too): all
 *                        //   namespaces enabled, colours/date off, output not
 *                        //   printed but recorded.  Call it BEFORE requiring the
 *                        //   package under test (debug 2.x fixes `enabled` when an
 *                        //   instance is created).  Returns the patched paths.
 *   cap.hookBunyan(log, rootDir, {accept, loggerName});
 *                        // patch Logger.prototype._emit of every copy of npm
 *                        //   `bunyan` found in rootDir/node_modules: each record
 *                        //   a logger emits (its level enabled) is recorded.
 *                        //   The loggers' own streams still get the record.
 *                        //   accept(rec) -> false drops a record (e.g. of
 *                        //   another case); loggerName(rec) -> string, default
 *                        //   `name` then `/component` when that field is set.
 *                        //   Returns the patched paths.
 *   log.caseId = 'c00001';   // plain property; records while it is null are ignored
 *   ... run the case (await it) ...
 *   log.endCase();           // buffered rows written if >= minEvents, else dropped
 *   await log.finish();      // flushes and closes the gzip file (returns a Promise)
 *   process.stderr.write(log.summary() + '\n');
 *
 *   log.record(activity, level, logger, skipFn)
 *                        // generic entry point for other sources (e.g. a
 *                        //   diag logger): finds the call site on the current
 *                        //   stack (frames above skipFn omitted), returns true
 *                        //   when a row was buffered
 *   cap.callSite(log, skipFn) -> {abs, file, line, column, function, qualname, wrapped} | null
 *   cap.seededRandom(seedString) -> () => float in [0, 1)  (xmur3 + sfc32)
 *   cap.rngTools(rand) -> {int(a, b), pick(arr), chance(p), shuffle(arr), sample(arr, k)}
 *
 * Rows: case_id,timestamp,activity,level,logger,code.filepath,code.function,
 * code.lineno,code.qualname,code.wrapped — CSV quoted like Python's csv module
 * (minimal quoting, \r\n line ends), gzipped.  activity: newlines -> `\n`, cut
 * at 500 characters.  timestamp: ISO 8601 UTC with microseconds (+00:00).
 *
 * Call site: a V8 structured stack trace (CallSite objects) taken when the
 * record is made; frames of logging machinery are skipped, then frames of
 * declared wrappers (wrapped=1); the next frame is the emitter.  The record
 * is kept only if that frame lies inside indexDir.  code.lineno is the
 * 1-based line of the frame (the logging call).  code.function/qualname come
 * from a small static scanner of the emitting file (innermost named
 * function/method, nested names dotted, `Class.method`; anonymous callbacks
 * are transparent, as lambdas are in _capture.py); the V8 function name is
 * the fallback.
 *
 * bunyan rendering: activity = the record's `msg` as bunyan built it
 * (`util.format` of the message arguments after the leading fields object or
 * Error, or the Error's message when it is the only argument), without the JSON
 * envelope (time, hostname, pid, fields).  level = bunyan's level name
 * upper-cased (TRACE, DEBUG, INFO, WARN, ERROR, FATAL).  `log.trace()` without
 * arguments (an "is enabled" test) makes no record.
 *
 * debug rendering: debug's own `%o %O %s %d %j %%` formatter pass runs as
 * usual; the namespace prefix/date/colours/`+Nms` are suppressed by replacing
 * formatArgs; the remaining args are rendered as debug's log() would
 * (util.formatWithOptions(inspectOpts, ...) for debug >= 3, util.format for
 * debug 2.x).  logger = namespace, level = 'debug'.
 */
const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');
const os = require('os');
const util = require('util');
const zlib = require('zlib');
const { performance } = require('perf_hooks');

const FIELDS = ['case_id', 'timestamp', 'activity', 'level', 'logger', 'code.filepath',
  'code.function', 'code.lineno', 'code.qualname', 'code.wrapped'];

function escapeMsg(msg) {
  msg = String(msg).replace(/\r\n|\n|\r/g, '\\n');
  if (msg.length > 500) msg = Array.from(msg).slice(0, 500).join('');
  return msg;
}

function csvField(v) {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

function csvRow(fields) {
  return fields.map(csvField).join(',') + '\r\n';
}

function isoMicro() {
  const t = performance.timeOrigin + performance.now(); // ms, sub-ms precision
  const ms = Math.floor(t);
  const micro = Math.floor((t - ms) * 1000);
  const iso = new Date(ms).toISOString(); // 2024-01-01T00:00:00.123Z
  return iso.slice(0, 23) + String(micro).padStart(3, '0') + '+00:00';
}

// ---------------------------------------------------------------------------
// Static qualname finder: a small JS/TS tokenizer + brace matcher.
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'typeof',
  'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'try',
  'finally', 'yield', 'await', 'function', 'class', 'extends', 'const', 'let', 'var', 'super',
  'import', 'export', 'default']);
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete',
  'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

function tokenize(src) {
  // tokens: {t: 'id'|'p'|'s'(string/template/regex/number), v, line, col, pos}
  const toks = [];
  let i = 0, line = 1, lineStart = 0;
  const n = src.length;
  const tmplStack = []; // brace depth at which a template `${` was opened
  let braceDepth = 0;
  const push = (t, v, pos) => toks.push({ t, v, line, col: pos - lineStart + 1, pos });
  const newline = (k) => { line++; lineStart = k + 1; };
  const lastSig = () => toks.length ? toks[toks.length - 1] : null;
  const scanTemplate = () => { // i at char after ` or after } closing ${; returns when ${ or ` ends
    while (i < n) {
      const c = src[i];
      if (c === '\\') { if (src[i + 1] === '\n') newline(i + 1); i += 2; continue; }
      if (c === '\n') newline(i);
      if (c === '`') { i++; return; }
      if (c === '$' && src[i + 1] === '{') { i += 2; tmplStack.push(braceDepth); braceDepth++; return; }
      i++;
    }
  };
  while (i < n) {
    const c = src[i];
    if (c === '\n') { newline(i); i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\ufeff') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      const end = e < 0 ? n : e + 2;
      for (let k = i; k < end; k++) if (src[k] === '\n') newline(k);
      i = end; continue;
    }
    if (c === '#' && i === 0 && src[1] === '!') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '"' || c === "'") {
      const s = i; i++;
      while (i < n && src[i] !== c) { if (src[i] === '\\') i++; else if (src[i] === '\n') break; i++; }
      i++; push('s', '', s); continue;
    }
    if (c === '`') { const s = i; i++; scanTemplate(); push('s', '', s); continue; }
    if (/[A-Za-z_$\u0080-\uffff]/.test(c)) {
      const s = i;
      while (i < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(src[i])) i++;
      push('id', src.slice(s, i), s); continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1]))) {
      const s = i;
      while (i < n && /[0-9A-Za-z_.]/.test(src[i])) i++;
      push('s', '', s); continue;
    }
    if (c === '/') {
      const prev = lastSig();
      const regexOk = !prev || (prev.t === 'p' && !/^[)\]}]$/.test(prev.v)) ||
        (prev.t === 'id' && REGEX_AFTER_WORD.has(prev.v));
      if (regexOk) {
        const s = i; i++;
        let inClass = false;
        while (i < n && src[i] !== '\n') {
          if (src[i] === '\\') { i += 2; continue; }
          if (src[i] === '[') inClass = true;
          else if (src[i] === ']') inClass = false;
          else if (src[i] === '/' && !inClass) break;
          i++;
        }
        i++;
        while (i < n && /[a-z]/.test(src[i])) i++;
        push('s', '', s); continue;
      }
    }
    if (c === '{') { braceDepth++; push('p', '{', i); i++; continue; }
    if (c === '}') {
      if (tmplStack.length && tmplStack[tmplStack.length - 1] === braceDepth - 1) {
        tmplStack.pop(); braceDepth--; i++; scanTemplate(); continue; // template continues
      }
      braceDepth--; push('p', '}', i); i++; continue;
    }
    if (c === '=' && src[i + 1] === '>') { push('p', '=>', i); i += 2; continue; }
    if (c === '?' && src[i + 1] === '.' && !/[0-9]/.test(src[i + 2])) { push('p', '?.', i); i += 2; continue; }
    push('p', c, i); i++;
  }
  return toks;
}

function scanFunctions(src) {
  // returns [{name, kind: 'class'|'func', anon, start:[line,col], end:[line,col], parent}]
  const toks = tokenize(src);
  const spans = [];
  const stack = []; // entries: {span|null, kind}
  const parenOpen = []; // indices of open ( / [
  const matchOf = new Map(); // index of ')' -> index of '('
  let pendingClass = null; // {name, depth}
  const nameFromAssign = (k) => { // k = index of token before the function expression
    // `a.b = function`, `b: function`, `const b = function`, `b = (..) =>`
    const t = toks[k];
    if (!t) return null;
    if (t.v === '=' || t.v === ':') {
      const nm = toks[k - 1];
      if (nm && nm.t === 'id' && !KEYWORDS.has(nm.v)) return nm.v;
      if (nm && nm.t === 's' && t.v === ':') return null;
    }
    return null;
  };
  const inClassBody = () => stack.length && stack[stack.length - 1].kind === 'class';
  for (let idx = 0; idx < toks.length; idx++) {
    const tk = toks[idx];
    if (tk.t === 'id' && tk.v === 'class') {
      const nx = toks[idx + 1];
      const name = nx && nx.t === 'id' && nx.v !== 'extends' ? nx.v : (nameFromAssign(idx - 1) || '');
      pendingClass = { name, parens: parenOpen.length };
      continue;
    }
    if (tk.t !== 'p') continue;
    if (tk.v === '(' || tk.v === '[') { parenOpen.push(idx); continue; }
    if (tk.v === ')' || tk.v === ']') { const o = parenOpen.pop(); if (o !== undefined) matchOf.set(idx, o); continue; }
    if (tk.v === '{') {
      let entry = { span: null, kind: 'block' };
      if (pendingClass && pendingClass.parens === parenOpen.length) {
        entry = { kind: 'class', span: { name: pendingClass.name, kind: 'class', anon: !pendingClass.name, start: [tk.line, tk.col] } };
        pendingClass = null;
      } else {
        let p = idx - 1;
        let prev = toks[p];
        // TS return type annotation: `) : Type {` -> back up to the `)`
        if (prev && prev.v !== ')' && prev.v !== '=>') {
          for (let q = p, lim = Math.max(0, p - 12); q >= lim; q--) {
            const v = toks[q].v;
            if (v === ';' || v === '{' || v === '}' || v === '=') break;
            if (v === ')' && toks[q + 1] && toks[q + 1].v === ':') { p = q; prev = toks[q]; break; }
          }
        }
        if (prev && prev.v === '=>') {
          // arrow with block body; params `(..)` or a single identifier
          let q = p - 1;
          if (toks[q] && toks[q].v === ')' && matchOf.has(q)) q = matchOf.get(q) - 1;
          else q = q - 1;
          if (toks[q] && toks[q].v === 'async') q--;
          const nm = nameFromAssign(q);
          entry = { kind: 'func', span: { name: nm || '', kind: 'func', anon: !nm, start: [tk.line, tk.col] } };
        } else if (prev && prev.v === ')' && matchOf.has(p)) {
          let q = matchOf.get(p) - 1; // token before '('
          if (toks[q] && toks[q].v === '>') { // generics <T>
            let d = 0;
            for (; q >= 0; q--) { if (toks[q].v === '>') d++; else if (toks[q].v === '<') { d--; if (d === 0) { q--; break; } } }
          }
          const before = toks[q];
          if (before && before.t === 'id' && before.v === 'function') {
            const nm = nameFromAssign(q - 1);
            entry = { kind: 'func', span: { name: nm || '', kind: 'func', anon: !nm, start: [tk.line, tk.col] } };
          } else if (before && before.t === 'id') {
            let b2 = toks[q - 1];
            if (b2 && b2.v === '*') b2 = toks[q - 2];
            if (b2 && b2.t === 'id' && b2.v === 'function') {
              entry = { kind: 'func', span: { name: before.v, kind: 'func', anon: false, start: [tk.line, tk.col] } };
            } else if (!KEYWORDS.has(before.v) || before.v === 'constructor') {
              // method shorthand (class body or object literal)
              entry = { kind: 'func', span: { name: before.v, kind: 'func', anon: false, start: [tk.line, tk.col] } };
            }
          } else if (before && before.t === 's' && toks[q - 1] && toks[q - 1].v !== '(') {
            // 'quoted'(..) { } method: rare, anonymous
            entry = { kind: 'func', span: { name: '', kind: 'func', anon: true, start: [tk.line, tk.col] } };
          } else if (before && before.v === ']') {
            entry = { kind: 'func', span: { name: '', kind: 'func', anon: true, start: [tk.line, tk.col] } };
          }
        }
      }
      if (entry.span) {
        entry.span.parent = null;
        for (let s = stack.length - 1; s >= 0; s--) if (stack[s].span) { entry.span.parent = stack[s].span; break; }
        spans.push(entry.span);
      }
      stack.push(entry);
      continue;
    }
    if (tk.v === '}') {
      const e = stack.pop();
      if (e && e.span) e.span.end = [tk.line, tk.col];
    }
  }
  for (const s of spans) if (!s.end) s.end = [Infinity, 0];
  void inClassBody;
  return spans;
}

const _qnCache = new Map();
function staticQualname(file, line, col) {
  let spans = _qnCache.get(file);
  if (spans === undefined) {
    try { spans = scanFunctions(fs.readFileSync(file, 'utf8')); } catch (e) { spans = null; }
    _qnCache.set(file, spans);
  }
  if (!spans) return null;
  const le = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
  let best = null;
  for (const s of spans) {
    if (le(s.start, [line, col]) && le([line, col], s.end) && (!best || le(best.start, s.start))) best = s;
  }
  const names = [];
  for (let s = best; s; s = s.parent) if (!s.anon) names.unshift(s.name);
  // the function is the innermost named non-class entry
  let fn = '';
  for (let s = best; s; s = s.parent) if (!s.anon && s.kind === 'func') { fn = s.name; break; }
  return { function: fn, qualname: names.join('.') };
}

// ---------------------------------------------------------------------------
function structuredStack(skipFn, limit) {
  const holder = {};
  const prevPrep = Error.prepareStackTrace;
  const prevLimit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_e, sites) => sites;
  Error.stackTraceLimit = limit || 40;
  try {
    Error.captureStackTrace(holder, skipFn || structuredStack);
    return holder.stack || [];
  } finally {
    Error.prepareStackTrace = prevPrep;
    Error.stackTraceLimit = prevLimit;
  }
}

// Does the frame's function begin where a wrapper name `@L:C` (or `@L`)
// says?  V8 knows where each function's definition begins (the enclosing
// position of the frame); an anonymous arrow has no other identity.
function definedAt(site, spec) {
  if (spec[0] !== '@' || typeof site.getEnclosingLineNumber !== 'function') return false;
  const [l, c] = spec.slice(1).split(':').map(Number);
  return site.getEnclosingLineNumber() === l && (c === undefined || site.getEnclosingColumnNumber() === c);
}

class EventLog {
  constructor(outPath, opts) {
    opts = opts || {};
    this.outPath = outPath;
    this.indexDir = fs.realpathSync(opts.indexDir);
    this.prefix = path.basename(this.indexDir);
    this.wrappers = (opts.wrappers || []).map(([f, fn]) => [f, fn]);
    this.machinery = [__filename].concat(opts.machinery || []).map((p) => {
      try { return fs.realpathSync(p); } catch (e) { return p; }
    });
    this.mapLocation = opts.mapLocation || null;
    this.qualnameFn = opts.qualname || null;
    this.minEvents = opts.minEvents === undefined ? 3 : opts.minEvents;
    this.caseId = null;
    this._rows = [];
    this._real = new Map();
    this.casesWritten = 0;
    this.casesDropped = 0;
    this.eventsWritten = 0;
    this.lines = new Set();
    this.functions = new Set();
    this._gz = zlib.createGzip();
    this._fh = fs.createWriteStream(outPath);
    this._done = new Promise((resolve, reject) => {
      this._fh.on('close', resolve);
      this._fh.on('error', reject);
      this._gz.on('error', reject);
    });
    this._gz.pipe(this._fh);
    this._gz.write(csvRow(FIELDS));
  }

  addMachinery(p) {
    try { p = fs.realpathSync(p); } catch (e) { /* keep */ }
    if (!this.machinery.includes(p)) this.machinery.push(p);
  }

  _realpath(f) {
    let r = this._real.get(f);
    if (r === undefined) {
      r = f;
      if (f.startsWith('file://')) { try { r = require('url').fileURLToPath(f); } catch (e) { /* keep */ } }
      try { r = fs.realpathSync(r); } catch (e) { /* keep */ }
      this._real.set(f, r);
    }
    return r;
  }

  _isMachinery(abs) {
    for (const m of this.machinery) if (abs === m || abs.startsWith(m + path.sep)) return true;
    return false;
  }

  _rel(abs) {
    if (abs === this.indexDir || abs.startsWith(this.indexDir + path.sep)) {
      return this.prefix + '/' + path.relative(this.indexDir, abs).split(path.sep).join('/');
    }
    return null;
  }

  _frame(site) {
    let file = site.getFileName();
    if (!file || file.startsWith('node:') || !(file.startsWith('/') || file.startsWith('file://'))) return null;
    let line = site.getLineNumber(), column = site.getColumnNumber();
    let abs = this._realpath(file);
    const raw = abs;
    if (this.mapLocation) {
      const m = this.mapLocation(abs, line, column);
      if (m) { abs = this._realpath(m.file); line = m.line; column = m.column; }
    }
    return { raw, abs, line, column, site };
  }

  _names(fr) {
    let q = this.qualnameFn ? this.qualnameFn(fr.abs, fr.line, fr.column) : null;
    if (!q) q = staticQualname(fr.abs, fr.line, fr.column);
    const v8name = fr.site.getFunctionName() || fr.site.getMethodName() || '';
    if (!q) q = { function: v8name.split('.').pop(), qualname: v8name };
    if (!q.function && !q.qualname) q = { function: '', qualname: '' };
    return q;
  }

  callSite(skipFn) {
    const sites = structuredStack(skipFn || this.callSite);
    let wrapped = 0;
    for (const site of sites) {
      const fr = this._frame(site);
      if (!fr) {
        if (site.isNative() || !site.getFileName()) continue; // e.g. Function.prototype.apply
        return null; // node internals: not an emitter of the package
      }
      if (this._isMachinery(fr.raw) || this._isMachinery(fr.abs)) continue;
      const rel = this._rel(fr.abs);
      if (rel === null) return null;
      const names = this._names(fr);
      const v8name = site.getFunctionName() || '';
      if (this.wrappers.some(([wf, wfn]) => wf === rel &&
          (wfn === '*' || wfn === names.function || wfn === v8name || definedAt(site, wfn)))) {
        wrapped = 1;
        continue;
      }
      return { abs: fr.abs, file: rel, line: fr.line, column: fr.column,
        function: names.function, qualname: names.qualname, wrapped };
    }
    return null;
  }

  record(activity, level, logger, skipFn) {
    const cid = this.caseId;
    if (cid === null || cid === undefined) return false;
    let cs;
    try { cs = this.callSite(skipFn || this.record); } catch (e) { return false; }
    if (!cs) return false;
    this._rows.push([cid, isoMicro(), escapeMsg(activity), level, logger, cs.file, cs.function,
      cs.line, cs.qualname, cs.wrapped]);
    return true;
  }

  endCase() {
    const rows = this._rows;
    this._rows = [];
    if (rows.length >= this.minEvents) {
      let buf = '';
      for (const r of rows) {
        buf += csvRow(r);
        this.lines.add(r[5] + ':' + r[7]);
        this.functions.add(r[5] + ':' + r[8]);
      }
      this._gz.write(buf);
      this.casesWritten++;
      this.eventsWritten += rows.length;
    } else {
      this.casesDropped++;
    }
    this.caseId = null;
  }

  finish() {
    this.caseId = null;
    this._rows = [];
    this._gz.end();
    return this._done;
  }

  summary() {
    return `${this.outPath}: ${this.casesWritten} cases (${this.casesDropped} dropped), ` +
      `${this.eventsWritten} events, ${this.lines.size} distinct lines, ${this.functions.size} functions`;
  }
}

// ---------------------------------------------------------------------------
// npm `debug` hook
function findDebugCopies(rootDir) {
  return findPackageCopies(rootDir, 'debug');
}

// Every installed copy of npm package `name` under rootDir/node_modules
// (nested node_modules too): [{dir (real path), version}].
function findPackageCopies(rootDir, name) {
  const found = [];
  const seen = new Set();
  const walk = (nm, depth) => {
    if (depth > 12) return;
    let entries;
    try { entries = fs.readdirSync(nm, { withFileTypes: true }); } catch (e) { return; }
    for (const ent of entries) {
      if (!ent.isDirectory() && !ent.isSymbolicLink()) continue;
      const p = path.join(nm, ent.name);
      if (ent.name.startsWith('@')) { walk(p, depth + 1); continue; }
      if (ent.name === '.bin' || ent.name.startsWith('.')) continue;
      if (ent.name === name) {
        try {
          const pj = JSON.parse(fs.readFileSync(path.join(p, 'package.json'), 'utf8'));
          const rp = fs.realpathSync(p);
          if (pj.name === name && !seen.has(rp)) { seen.add(rp); found.push({ dir: rp, version: pj.version }); }
        } catch (e) { /* not a package */ }
      }
      walk(path.join(p, 'node_modules'), depth + 1);
    }
  };
  walk(path.join(rootDir, 'node_modules'), 0);
  return found;
}

function patchDebug(log, createDebug, version, enable) {
  if (createDebug.__pmragHooked) return;
  createDebug.__pmragHooked = true;
  const major = parseInt(String(version).split('.')[0], 10) || 4;
  const inspectOpts = createDebug.inspectOpts || (createDebug.inspectOpts = {});
  inspectOpts.colors = false;
  inspectOpts.hideDate = true;
  if (createDebug.formatters) {
    for (const k of Object.keys(createDebug.formatters)) {
      const orig = createDebug.formatters[k];
      createDebug.formatters[k] = function (v) {
        this.useColors = false;
        if (this.inspectOpts) this.inspectOpts.colors = false;
        return orig.call(this, v);
      };
    }
  }
  createDebug.formatArgs = function () { /* no namespace prefix, date, colours or +Nms */ };
  const render = major >= 3
    ? (args) => util.formatWithOptions(createDebug.inspectOpts, ...args)
    : (args) => util.format.apply(util, args);
  createDebug.log = function capturedDebugLog(...args) {
    if (log.caseId === null || log.caseId === undefined) return;
    let msg;
    try { msg = render(args); } catch (e) { msg = String(args[0]); }
    log.record(msg, 'debug', this && this.namespace ? this.namespace : '', capturedDebugLog);
  };
  const saved = process.env.DEBUG;
  createDebug.enable(enable);
  if (saved === undefined) delete process.env.DEBUG; else process.env.DEBUG = saved;
}

function hookDebug(log, rootDir, opts) {
  opts = opts || {};
  const enable = opts.enable || '*';
  const copies = findDebugCopies(rootDir);
  for (const c of copies) {
    log.addMachinery(c.dir);
    // eslint-disable-next-line global-require
    const createDebug = require(c.dir);
    patchDebug(log, createDebug, c.version, enable);
  }
  return copies.map((c) => c.dir);
}

// ---------------------------------------------------------------------------
// npm `bunyan` hook
function defaultBunyanLoggerName(rec) {
  return rec.component ? `${rec.name}/${rec.component}` : String(rec.name || '');
}

function patchBunyan(log, Logger, opts) {
  const proto = Logger && Logger.prototype;
  if (!proto || typeof proto._emit !== 'function' || proto._emit.__pmragHooked) return;
  const orig = proto._emit;
  const names = Logger.nameFromLevel || {};
  const accept = opts.accept || null;
  const loggerName = opts.loggerName || defaultBunyanLoggerName;
  const captured = function capturedBunyanEmit(rec, noemit) {
    // noemit: bunyan only wants the record's JSON text (dtrace probes), no output
    if (!noemit && rec && log.caseId !== null && log.caseId !== undefined && (!accept || accept(rec))) {
      const level = String(names[rec.level] || rec.level).toUpperCase();
      log.record(rec.msg, level, loggerName(rec), capturedBunyanEmit);
    }
    return orig.call(this, rec, noemit);
  };
  captured.__pmragHooked = true;
  proto._emit = captured;
}

function hookBunyan(log, rootDir, opts) {
  opts = opts || {};
  const copies = findPackageCopies(rootDir, 'bunyan');
  for (const c of copies) {
    log.addMachinery(c.dir);
    // eslint-disable-next-line global-require
    patchBunyan(log, require(c.dir), opts);
  }
  return copies.map((c) => c.dir);
}

// ---------------------------------------------------------------------------
// Seeded PRNG (one per case): xmur3 string hash -> sfc32.
function seededRandom(seedStr) {
  let h = 1779033703 ^ seedStr.length;
  for (let i = 0; i < seedStr.length; i++) {
    h = Math.imul(h ^ seedStr.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  const next = () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^= h >>> 16) >>> 0;
  };
  let a = next(), b = next(), c = next(), d = next();
  return function () {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function rngTools(rand) {
  const int = (a, b) => a + Math.floor(rand() * (b - a + 1));
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const chance = (p) => rand() < p;
  const shuffle = (arr) => {
    const a = arr.slice();
    for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
    return a;
  };
  const sample = (arr, k) => shuffle(arr).slice(0, k);
  return { rand, int, pick, chance, shuffle, sample };
}

// A temp dir for a run's fixtures, pmrag-NAME-XXXXXX, removed at exit and
// by the cleanup() it comes with.
function tempDir(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pmrag-${name}-`));
  const cleanup = () => { try { fs.rmSync(dir, { recursive: true, force: true }); } catch (e) { /* ignore */ } };
  process.on('exit', cleanup);
  return { dir, cleanup };
}

// Where a server a generator starts keeps its data: /dev/shm when
// writable (a database's fsyncs cost nothing there), else the temp dir.
function tempBase() {
  try { fs.accessSync('/dev/shm', fs.constants.W_OK); return '/dev/shm'; } catch (e) { return os.tmpdir(); }
}

// A port of 127.0.0.1 free when asked (and closed: nothing listens there
// until someone binds it).
async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const p = s.address().port;
  await new Promise((r) => s.close(r));
  return p;
}

// The generators' command line: --repo (print the directory to index),
// --out FILE, --cases N (default cases), --seed S, --deps DIR (default
// .deps/corpus/NAME in the repository); anything else exits 2.
function parseArgs(argv, name, cases) {
  const a = { repo: false, out: null, cases, seed: '1', deps: null };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--repo') a.repo = true;
    else if (k === '--out') a.out = argv[++i];
    else if (k === '--cases') a.cases = parseInt(argv[++i], 10);
    else if (k === '--seed') a.seed = String(argv[++i]);
    else if (k === '--deps') a.deps = argv[++i];
    else { process.stderr.write(`unknown argument ${k}\n`); process.exit(2); }
  }
  a.deps = path.resolve(a.deps || path.join(__dirname, '..', '..', '..', '.deps', 'corpus', name));
  return a;
}

function callSite(log, skipFn) {
  return log.callSite(skipFn || callSite);
}

/*
 * One HTTP request of a generator's client, as planned in q: method, path,
 * headers, body (a string or null), abort (ms after which the client gives
 * up, 0: never), slowBody (ms between the two halves of the body, 0: at
 * once), wrongLength (a content-length 5 bytes longer than the body).
 * Resolves to the status, 0 when the request failed or took over 400 ms,
 * -1 when the client aborted it.
 */
function httpRequest(port, agent, q) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => { if (!done) { done = true; clearTimeout(guard); resolve(v); } };
    const headers = Object.assign({}, q.headers);
    const data = q.body === null ? null : Buffer.from(q.body);
    if (data) headers['content-length'] = data.length + (q.wrongLength ? 5 : 0);
    const req = http.request({ host: '127.0.0.1', port, method: q.method, path: q.path, agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => finish(res.statusCode));
      res.on('error', () => finish(0));
      res.on('aborted', () => finish(0));
    });
    const guard = setTimeout(() => { req.destroy(); finish(0); }, 400);
    req.on('error', () => finish(0));
    if (q.abort) setTimeout(() => { req.destroy(); finish(-1); }, q.abort);
    if (data && q.slowBody) {
      req.write(data.subarray(0, data.length >> 1));
      setTimeout(() => { if (!req.destroyed) req.end(data.subarray(data.length >> 1)); }, q.slowBody);
    } else {
      req.end(data || undefined);
    }
  });
}

module.exports = {
  EventLog, hookDebug, hookBunyan, findDebugCopies, findPackageCopies, callSite, staticQualname, scanFunctions,
  seededRandom, rngTools, escapeMsg, csvRow, isoMicro, FIELDS, parseArgs, tempDir, tempBase, freePort, httpRequest,
};
