'use strict';
/*
 * Minimal source-map (revision 3) reader for the Node event-log generators.
 *
 * Compiled packages (e.g. the OpenTelemetry JS SDK) ship `X.js` next to
 * `X.js.map`; the map's `mappings` field is a list of Base64-VLQ segments and
 * `sourcesContent` carries the original TypeScript.  This module decodes the
 * mappings lazily (once per file, cached) and answers "which original
 * (source, line) does generated (line, column) come from".
 *
 *   const sm = require('./_sourcemap');
 *   sm.originalPosition('/abs/build/src/Span.js', 120, 17)
 *     -> { source: '/abs/src/Span.ts', line: 233, column: 5 }  (1-based line/column) or null
 *   sm.sourcesOf('/abs/build/src/Span.js') -> [{ source, content }]
 *
 * No dependencies; the decoder follows the format description (ECMA-426).
 */
const fs = require('fs');
const path = require('path');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VAL = new Int8Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VAL[B64.charCodeAt(i)] = i;

/** Decode the VLQ integers of one segment string (e.g. "AAAA" -> [0,0,0,0]). */
function decodeSegment(str, start, end, out) {
  out.length = 0;
  let value = 0;
  let shift = 0;
  for (let i = start; i < end; i++) {
    const d = B64_VAL[str.charCodeAt(i)];
    if (d < 0) throw new Error('bad base64 digit in source map: ' + str[i]);
    value += (d & 31) * Math.pow(2, shift);  // avoid 32-bit overflow of <<
    if (d & 32) {
      shift += 5;
      continue;
    }
    const neg = value % 2 === 1;
    const mag = Math.floor(value / 2);
    out.push(neg ? -mag : mag);
    value = 0;
    shift = 0;
  }
  if (shift !== 0) throw new Error('truncated VLQ in source map');
  return out;
}

/**
 * Parse `mappings` into an array (one entry per generated line) of segment
 * arrays [genCol, srcIdx, origLine, origCol] with 0-based values, sorted by genCol.
 * Segments without a source (length 1) are kept as [genCol, -1, -1, -1].
 */
function parseMappings(mappings) {
  const lines = [];
  let segs = [];
  let genCol = 0;
  let src = 0;
  let oLine = 0;
  let oCol = 0;
  const tmp = [];
  let i = 0;
  const n = mappings.length;
  while (i <= n) {
    let j = i;
    while (j < n && mappings[j] !== ',' && mappings[j] !== ';') j++;
    if (j > i) {
      decodeSegment(mappings, i, j, tmp);
      genCol += tmp[0];
      if (tmp.length >= 4) {
        src += tmp[1];
        oLine += tmp[2];
        oCol += tmp[3];
        segs.push([genCol, src, oLine, oCol]);
      } else {
        segs.push([genCol, -1, -1, -1]);
      }
    }
    if (j >= n || mappings[j] === ';') {
      segs.sort((a, b) => a[0] - b[0]);
      lines.push(segs);
      segs = [];
      genCol = 0;  // generated column resets on each line; the others do not
    }
    i = j + 1;
  }
  return lines;
}

const cache = new Map();  // js path -> parsed map or null

function load(jsPath) {
  if (cache.has(jsPath)) return cache.get(jsPath);
  let result = null;
  try {
    let mapPath = jsPath + '.map';
    if (!fs.existsSync(mapPath)) {
      const js = fs.readFileSync(jsPath, 'utf8');
      const m = /\/\/# sourceMappingURL=([^\s'"]+)\s*$/.exec(js);
      if (!m || m[1].startsWith('data:')) throw new Error('no map');
      mapPath = path.resolve(path.dirname(jsPath), m[1]);
    }
    const raw = JSON.parse(fs.readFileSync(mapPath, 'utf8'));
    const root = raw.sourceRoot || '';
    const base = path.dirname(mapPath);
    result = {
      sources: (raw.sources || []).map((s) => path.resolve(base, root, s)),
      sourcesContent: raw.sourcesContent || [],
      mappings: raw.mappings || '',
      lines: null,
    };
  } catch (e) {
    result = null;
  }
  cache.set(jsPath, result);
  return result;
}

/**
 * Original position of generated (line, column), both 1-based as V8 reports
 * them.  Uses the last segment of the line whose generated column is <= column
 * (the segment covering that column); falls back to the first segment of the
 * line when the column precedes every segment.
 */
function originalPosition(jsPath, line, column) {
  const m = load(jsPath);
  if (!m) return null;
  if (m.lines === null) m.lines = parseMappings(m.mappings);
  const segs = m.lines[line - 1];
  if (!segs || segs.length === 0) return null;
  const col0 = column - 1;
  let lo = 0;
  let hi = segs.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segs[mid][0] <= col0) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  let seg = best >= 0 ? segs[best] : segs[0];
  if (seg[1] < 0) {  // unmapped segment: take the nearest mapped one before it
    for (let k = best; k >= 0; k--) if (segs[k][1] >= 0) { seg = segs[k]; break; }
    if (seg[1] < 0) return null;
  }
  return { source: m.sources[seg[1]], line: seg[2] + 1, column: seg[3] + 1 };
}

/** [{source (absolute), content (string or null)}] of a compiled file's map. */
function sourcesOf(jsPath) {
  const m = load(jsPath);
  if (!m) return [];
  return m.sources.map((s, i) => ({ source: s, content: m.sourcesContent[i] == null ? null : m.sourcesContent[i] }));
}

module.exports = { decodeSegment, parseMappings, originalPosition, sourcesOf };
