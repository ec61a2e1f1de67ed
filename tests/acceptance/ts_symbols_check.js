#!/usr/bin/env node
/*
 * Acceptance checker: pmrag's TypeScript/JavaScript symbols against the
 * TypeScript compiler's own parse.
 *
 *   ts_symbols_check.js ROOT SYMBOLS.json [--exts .ts,.tsx,.mts,.cts,.js,.mjs,.cjs,.jsx]
 *       [--min-recall 0.99] [--show N] [--ts PATH/typescript.js]
 *       [--include-node-modules] [--include-dts] [--max-line 20000] [--dump-truth FILE]
 *
 * Files: every file under ROOT with one of --exts, skipping `.git`,
 * `node_modules` (unless --include-node-modules), `*.min.{js,mjs,cjs}`, files
 * with any line longer than --max-line (20000) characters (minified bundles
 * and inline source maps), and
 * `.d.ts`/`.d.mts`/`.d.cts` declaration files (unless --include-dts).
 * Each is parsed with ts.createSourceFile(name, text, ScriptTarget.Latest,
 * true, scriptKind by extension: .ts/.mts/.cts TS, .tsx TSX, .js/.mjs/.cjs JS,
 * .jsx JSX).
 *
 * Truth line: the 1-based line of the NAME token (name.getStart()); for
 * constructors the line of the `constructor` keyword. Lines are counted by
 * '\n' only (as tree-sitter counts rows), not by TS's own line map, which
 * also breaks on \r, U+2028 and U+2029. The name line lies inside the symbol
 * whatever span convention the tool uses (decorators / `export` included or
 * not), which is why it is used rather than node.getStart().
 *
 * Truth items (category -> expected kind):
 *   function   FunctionDeclaration with a name and a body           -> function
 *   class      ClassDeclaration with a name; `const X = class {}` (name X) -> class
 *   interface  InterfaceDeclaration                                  -> interface
 *   enum       EnumDeclaration                                       -> enum
 *   type       TypeAliasDeclaration                                  -> type
 *   method     MethodDeclaration with a body (class or object literal),
 *              Constructor with a body (name `constructor`), Get/SetAccessor
 *              with a body, class PropertyDeclaration and object-literal
 *              PropertyAssignment whose initializer is an arrow/function -> method
 *   const-fn   VariableDeclaration (const/let/var, any scope) with an
 *              identifier name and an arrow/function initializer    -> function
 *   cjs-assign `A.foo = function/arrow` (BinaryExpression `=`, left a
 *              PropertyAccessExpression): exports.foo, module.exports.foo,
 *              X.prototype.foo, X.foo, this.foo; name `foo`. The bare
 *              `module.exports = fn` is NOT an item (its "name" would be
 *              `exports`).                                           -> function
 * Initializers are unwrapped from parentheses, `as`, `satisfies`, `<T>x`
 * assertions and `x!`. Names: identifier text, private names with their `#`,
 * string literals without quotes, numeric literals as written; computed names
 * are skipped.
 *
 * Matching is one-to-one, as in py_symbols_check.py: a tool symbol (any kind
 * but module) in the same file with the same name whose [start_line,
 * end_line] contains the truth line; closest start not after the line wins
 * (greedy over all pairs of a (file, name) group). Kinds need not agree;
 * disagreements are reported. One JSON summary line on stdout, details on
 * stderr; exit 1 when overall recall < --min-recall, 2 on usage/input errors.
 */
'use strict';
const fs = require('fs');
const path = require('path');

function usage(msg) {
  if (msg) process.stderr.write('ts_symbols_check: ' + msg + '\n');
  process.stderr.write('usage: ts_symbols_check.js ROOT SYMBOLS.json [--exts LIST] [--min-recall F] ' +
    '[--show N] [--ts PATH] [--include-node-modules] [--include-dts] [--max-line N] [--dump-truth FILE]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    exts: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'],
    minRecall: 0.99, show: 10, ts: null, includeNodeModules: false,
    includeDts: false, dumpTruth: null, maxLine: 20000, pos: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage('missing value for ' + a); return argv[++i]; };
    if (a === '--exts') o.exts = val().split(',').map(s => s.trim()).filter(Boolean).map(s => s.startsWith('.') ? s : '.' + s);
    else if (a === '--min-recall') o.minRecall = Number(val());
    else if (a === '--show') o.show = parseInt(val(), 10);
    else if (a === '--ts') o.ts = val();
    else if (a === '--include-node-modules') o.includeNodeModules = true;
    else if (a === '--include-dts') o.includeDts = true;
    else if (a === '--dump-truth') o.dumpTruth = val();
    else if (a === '--max-line') o.maxLine = parseInt(val(), 10);
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('--')) usage('unknown option ' + a);
    else o.pos.push(a);
  }
  if (o.pos.length !== 2) usage('need ROOT and SYMBOLS.json');
  if (!(o.minRecall >= 0 && o.minRecall <= 1)) usage('bad --min-recall');
  if (!(o.show >= 0)) usage('bad --show');
  return o;
}

function loadTs(explicit) {
  const candidates = [];
  if (explicit) candidates.push(explicit);
  else {
    if (process.env.PMRAG_TYPESCRIPT_JS) candidates.push(process.env.PMRAG_TYPESCRIPT_JS);
    candidates.push(path.resolve(__dirname, '../../.deps/corpora/typescript-5.9.3/package/lib/typescript.js'));
  }
  for (const c of candidates) {
    if (fs.existsSync(c)) return require(path.resolve(c));
  }
  process.stderr.write('ts_symbols_check: typescript.js not found (tried ' + candidates.join(', ') +
    '); run tests/acceptance/fetch.sh or pass --ts\n');
  process.exit(2);
}

const DTS_RE = /\.d\.(ts|mts|cts)$|\.d\.[^./]+\.ts$/;
const MIN_RE = /\.min\.(js|mjs|cjs)$/;

function listFiles(root, opt, stats) {
  const out = [];
  const exts = opt.exts.slice().sort((a, b) => b.length - a.length);
  function rec(dir) {
    let ents;
    try { ents = fs.readdirSync(dir, { withFileTypes: true }); } catch (e) { stats.unreadable++; return; }
    ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of ents) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        if (e.name === 'node_modules' && !opt.includeNodeModules) { stats.skipped_node_modules_dirs++; continue; }
        rec(full);
      } else if (e.isFile()) {
        const ext = exts.find(x => e.name.endsWith(x));
        if (!ext) continue;
        const rel = path.relative(root, full).split(path.sep).join('/');
        if (DTS_RE.test(e.name) && !opt.includeDts) { stats.skipped_dts++; continue; }
        if (MIN_RE.test(e.name)) { stats.skipped_min++; continue; }
        out.push({ rel, full, ext });
      }
    }
  }
  rec(root);
  return out;
}

function scriptKindFor(ts, ext) {
  switch (ext) {
    case '.tsx': return ts.ScriptKind.TSX;
    case '.jsx': return ts.ScriptKind.JSX;
    case '.js': case '.mjs': case '.cjs': return ts.ScriptKind.JS;
    default: return ts.ScriptKind.TS;  // .ts .mts .cts and anything else
  }
}

function lineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}
function lineOf(starts, pos) {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
  }
  return lo + 1;
}

const EXPECTED_KIND = {
  function: 'function', class: 'class', interface: 'interface', enum: 'enum', type: 'type',
  method: 'method', 'const-fn': 'function', 'cjs-assign': 'function',
};
const CATEGORIES = Object.keys(EXPECTED_KIND);

function extractTruth(ts, rel, text, ext) {
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, scriptKindFor(ts, ext));
  const starts = lineStarts(text);
  const items = [];
  const SK = ts.SyntaxKind;

  function unwrap(e) {
    while (e) {
      if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e) ||
          ts.isNonNullExpression(e) || (ts.isSatisfiesExpression && ts.isSatisfiesExpression(e))) e = e.expression;
      else break;
    }
    return e;
  }
  const isFn = e => !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  function propName(n) {
    if (!n) return null;
    switch (n.kind) {
      case SK.Identifier: case SK.PrivateIdentifier: return n.getText(sf);
      case SK.StringLiteral: case SK.NoSubstitutionTemplateLiteral: return n.text;
      case SK.NumericLiteral: case SK.BigIntLiteral: return n.getText(sf);
      default: return null;  // computed property names and anything odd
    }
  }
  function add(cat, sub, name, posNode, pos) {
    if (name === null || name === undefined || name === '') return;
    const p = pos !== undefined ? pos : posNode.getStart(sf);
    items.push({ file: rel, name, line: lineOf(starts, p), category: cat, sub });
  }

  function visit(node) {
    switch (node.kind) {
      case SK.FunctionDeclaration:
        if (node.name && node.body) add('function', 'function-decl', propName(node.name), node.name);
        break;
      case SK.ClassDeclaration:
        if (node.name) add('class', 'class-decl', propName(node.name), node.name);
        break;
      case SK.InterfaceDeclaration:
        add('interface', 'interface', propName(node.name), node.name);
        break;
      case SK.EnumDeclaration:
        add('enum', 'enum', propName(node.name), node.name);
        break;
      case SK.TypeAliasDeclaration:
        add('type', 'type', propName(node.name), node.name);
        break;
      case SK.MethodDeclaration:
        if (node.body) {
          const where = ts.isObjectLiteralExpression(node.parent) ? 'object-method' : 'class-method';
          add('method', where, propName(node.name), node.name);
        }
        break;
      case SK.Constructor:
        if (node.body) {
          const kw = node.getChildren(sf).find(c => c.kind === SK.ConstructorKeyword);
          const pos = kw ? kw.getStart(sf) : node.getStart(sf);
          add('method', 'constructor', 'constructor', null, pos);
        }
        break;
      case SK.GetAccessor: case SK.SetAccessor:
        if (node.body) add('method', node.kind === SK.GetAccessor ? 'getter' : 'setter', propName(node.name), node.name);
        break;
      case SK.PropertyDeclaration:
        if (isFn(unwrap(node.initializer))) add('method', 'class-prop-fn', propName(node.name), node.name);
        break;
      case SK.PropertyAssignment:
        if (ts.isObjectLiteralExpression(node.parent) && isFn(unwrap(node.initializer)))
          add('method', 'object-prop-fn', propName(node.name), node.name);
        break;
      case SK.VariableDeclaration:
        if (ts.isIdentifier(node.name) && node.initializer) {
          const init = unwrap(node.initializer);
          if (isFn(init)) add('const-fn', ts.isArrowFunction(init) ? 'arrow' : 'function-expr', propName(node.name), node.name);
          else if (init && ts.isClassExpression(init)) add('class', 'class-expr', propName(node.name), node.name);
        }
        break;
      case SK.BinaryExpression:
        if (node.operatorToken.kind === SK.EqualsToken && ts.isPropertyAccessExpression(node.left) &&
            isFn(unwrap(node.right))) {
          const left = node.left;
          const obj = left.expression;
          const objText = obj.getText(sf);
          const nm = propName(left.name);
          const isModuleExports = ts.isIdentifier(obj) && obj.text === 'module' && nm === 'exports';
          if (!isModuleExports) {
            let sub = 'other';
            if (objText === 'exports' || objText === 'module.exports') sub = 'exports';
            else if (ts.isPropertyAccessExpression(obj) && obj.name.text === 'prototype') sub = 'prototype';
            else if (obj.kind === SK.ThisKeyword) sub = 'this';
            add('cjs-assign', sub, nm, left.name);
          }
        }
        break;
    }
    ts.forEachChild(node, visit);
  }
  visit(sf);
  const parseErrors = (sf.parseDiagnostics || []).length;
  return { items, parseErrors, firstError: parseErrors ? sf.parseDiagnostics[0] : null, sf, starts };
}

function loadSymbols(file) {
  let data;
  try { data = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
    process.stderr.write('ts_symbols_check: cannot read ' + file + ': ' + e.message + '\n');
    process.exit(2);
  }
  if (!Array.isArray(data)) {
    process.stderr.write('ts_symbols_check: ' + file + ': top level is not a JSON array\n');
    process.exit(2);
  }
  const fields = { id: 'int', kind: 'string', name: 'string', qualname: 'string', file: 'string', start_line: 'int', end_line: 'int' };
  const good = [], malformed = [];
  data.forEach((s, i) => {
    const ok = s && typeof s === 'object' && !Array.isArray(s) && Object.entries(fields).every(([k, t]) =>
      t === 'int' ? Number.isInteger(s[k]) : typeof s[k] === t);
    if (ok) good.push(s); else malformed.push([i, s]);
  });
  return { good, malformed };
}

function match(truth, tool) {
  const byT = new Map(), byS = new Map();
  const key = (f, n) => f + '\u0000' + n;
  truth.forEach((t, i) => { const k = key(t.file, t.name); if (!byT.has(k)) byT.set(k, []); byT.get(k).push(i); });
  tool.forEach((s, i) => { const k = key(s.file, s.name); if (!byS.has(k)) byS.set(k, []); byS.get(k).push(i); });
  const t2s = new Map(), s2t = new Map();
  for (const [k, tis] of byT) {
    const sis = byS.get(k);
    if (!sis) continue;
    const pairs = [];
    for (const ti of tis) {
      const ln = truth[ti].line;
      for (const si of sis) {
        const s = tool[si];
        if (s.start_line <= ln && ln <= s.end_line) pairs.push([ln - s.start_line, s.end_line - s.start_line, ti, si]);
      }
    }
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
    for (const [, , ti, si] of pairs) {
      if (t2s.has(ti) || s2t.has(si)) continue;
      t2s.set(ti, si); s2t.set(si, ti);
    }
  }
  return { t2s, s2t };
}

function main() {
  const opt = parseArgs(process.argv.slice(2));
  const [root, symFile] = opt.pos;
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) usage('not a directory: ' + root);
  const ts = loadTs(opt.ts);
  const err = s => process.stderr.write(s + '\n');

  const t0 = process.hrtime.bigint();
  const stats = { skipped_node_modules_dirs: 0, skipped_dts: 0, skipped_min: 0, skipped_long_lines: 0, unreadable: 0 };
  const files = listFiles(root, opt, stats);
  const checked = new Set();
  const truth = [];
  const parseErrorFiles = [];
  const longLineFiles = [];
  for (const f of files) {
    let text;
    try { text = fs.readFileSync(f.full, 'utf8'); } catch (e) { stats.unreadable++; continue; }
    let longest = 0, prev = 0;
    for (let i = text.indexOf('\n'); ; i = text.indexOf('\n', i + 1)) {
      const end = i === -1 ? text.length : i;
      if (end - prev > longest) longest = end - prev;
      if (i === -1) break;
      prev = i + 1;
    }
    if (longest > opt.maxLine) { stats.skipped_long_lines++; longLineFiles.push(f.rel); continue; }
    checked.add(f.rel);
    const r = extractTruth(ts, f.rel, text, f.ext);
    if (r.parseErrors) {
      const d = r.firstError;
      parseErrorFiles.push(f.rel + ':' + lineOf(r.starts, d.start) + ' ' + ts.flattenDiagnosticMessageText(d.messageText, ' '));
    }
    for (const it of r.items) truth.push(it);
  }
  const truthSeconds = Number(process.hrtime.bigint() - t0) / 1e9;

  const { good: syms, malformed } = loadSymbols(symFile);
  const nonModule = syms.filter(s => s.kind !== 'module');
  const tool = nonModule.filter(s => checked.has(s.file));
  const outside = nonModule.length - tool.length;
  const { t2s, s2t } = match(truth, tool);

  const perCat = {};
  for (const c of CATEGORIES) perCat[c] = { truth: 0, matched: 0, recall: null };
  const perSub = {};
  truth.forEach((t, i) => {
    perCat[t.category].truth++;
    if (t2s.has(i)) perCat[t.category].matched++;
    const sk = t.category + '/' + t.sub;
    perSub[sk] = (perSub[sk] || 0) + 1;
  });
  for (const c of CATEGORIES) perCat[c].recall = perCat[c].truth ? perCat[c].matched / perCat[c].truth : null;
  const kindDis = {};
  const kindDisList = [];
  for (const [ti, si] of t2s) {
    const t = truth[ti], s = tool[si];
    if (s.kind !== EXPECTED_KIND[t.category]) {
      const k = t.category + ':' + s.kind;
      kindDis[k] = (kindDis[k] || 0) + 1;
      kindDisList.push([t, s]);
    }
  }
  const toolKinds = {};
  for (const s of tool) toolKinds[s.kind] = (toolKinds[s.kind] || 0) + 1;
  const recall = truth.length ? t2s.size / truth.length : null;
  const pass = recall === null ? true : recall >= opt.minRecall;

  if (opt.dumpTruth) fs.writeFileSync(opt.dumpTruth, JSON.stringify(truth, null, 0).replace(/\},\{/g, '},\n{') + '\n');

  const summary = {
    checker: 'ts_symbols',
    root,
    typescript: ts.version,
    line_basis: 'name',
    files_checked: checked.size,
    files_with_parse_errors: parseErrorFiles.length,
    skipped: stats,
    truth: truth.length,
    matched: t2s.size,
    recall,
    per_category: perCat,
    truth_by_subcategory: Object.fromEntries(Object.keys(perSub).sort().map(k => [k, perSub[k]])),
    tool_symbols_total: syms.length,
    tool_malformed: malformed.length,
    tool_checked: tool.length,
    tool_kinds: toolKinds,
    tool_outside_checked_files: outside,
    tool_unmatched: tool.length - s2t.size,
    kind_disagreements: kindDis,
    truth_seconds: Math.round(truthSeconds * 1000) / 1000,
    seconds: Math.round(Number(process.hrtime.bigint() - t0) / 1e6) / 1000,
    min_recall: opt.minRecall,
    pass,
  };

  const n = opt.show;
  if (parseErrorFiles.length) {
    err('# files with TypeScript parse errors (still checked): ' + parseErrorFiles.length);
    parseErrorFiles.slice(0, n).forEach(x => err('  ' + x));
  }
  if (longLineFiles.length) {
    err('# files skipped for a line longer than ' + opt.maxLine + ' chars: ' + longLineFiles.length);
    longLineFiles.slice(0, n).forEach(x => err('  ' + x));
  }
  if (malformed.length) {
    err('# malformed tool symbols (ignored): ' + malformed.length);
    malformed.slice(0, n).forEach(([i, s]) => err('  [' + i + '] ' + JSON.stringify(s).slice(0, 200)));
  }
  const missTotal = truth.length - t2s.size;
  err('# truth items missed by the tool: ' + missTotal);
  for (const c of CATEGORIES) {
    const miss = [];
    truth.forEach((t, i) => { if (t.category === c && !t2s.has(i)) miss.push(t); });
    if (!miss.length) continue;
    err('  ## ' + c + ': ' + miss.length + ' missed of ' + perCat[c].truth);
    miss.slice(0, n).forEach(t => err('    ' + t.file + ':' + t.line + '  ' + t.name + '  (' + t.sub + ')'));
  }
  const extra = tool.filter((s, i) => !s2t.has(i));
  err('# tool symbols (non-module) matching no truth item (informational): ' + extra.length);
  extra.slice(0, n).forEach(s => err('  ' + s.file + ':' + s.start_line + '-' + s.end_line + '  ' + s.kind + ' ' + s.name));
  if (kindDisList.length) {
    err('# kind disagreements (informational): ' + kindDisList.length);
    kindDisList.slice(0, n).forEach(([t, s]) => err('  ' + t.file + ':' + t.line + '  ' + t.name + ': ' + t.category +
      ' (expected ' + EXPECTED_KIND[t.category] + '), tool ' + s.kind));
  }
  err('# ' + (pass ? 'PASS' : 'FAIL: recall ' + (recall === null ? 'n/a' : recall.toFixed(4)) + ' < ' + opt.minRecall));
  process.stdout.write(JSON.stringify(summary) + '\n');
  process.exitCode = pass ? 0 : 1;
}

main();
