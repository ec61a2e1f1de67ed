#!/usr/bin/env node
'use strict';
/*
 * Event log of the npm eslint 8.57 linter (plain JavaScript; logs through
 * npm `debug`: `const debug = require("debug")("eslint:linter")`).
 *
 *   node gen_eslint.js --repo            # prints the directory to index
 *   node gen_eslint.js --out LOG.csv.gz [--cases 2500] [--seed 1] [--deps DIR]
 *
 * Indexed directory: <deps>/node_modules/eslint/lib.  Config loading of the
 * eslintrc mode lives in @eslint/eslintrc (another package: dropped).  All
 * debug namespaces are enabled except `eslint:code-path`, whose helpers dump
 * the code-path analyser state for every AST node (thousands of records per
 * file); note that eslint reads `debug.enabled` of that namespace once at load.
 *
 * No server.  A case is one lint run through the Node API over a small
 * project generated in a temp dir (removed at the end): seeded random JS
 * files (unused variables, == comparisons, missing semicolons, quotes,
 * unreachable code, switch fall-through, syntax errors, ES2015+ syntax
 * rejected by an old ecmaVersion, inline `/* eslint ... *\/` configs (some
 * malformed), `/* global *\/`, `/* eslint-env *\/`, eslint-disable /
 * eslint-disable-next-line / eslint-enable comments, unused directives),
 * Markdown files with code blocks handled by a local plugin's processor,
 * .eslintrc files at the root and in subdirectories (json/yaml/js/package.json
 * with env/globals/overrides/rule options/unknown rules/unknown plugins),
 * .eslintignore files, eslint.config.js for flat config.  The run is one of:
 * `ESLint` (eslintrc mode: patterns, lintText, fix + outputFixes, fixTypes,
 * cache on/off with a second run hitting the cache, ignore options,
 * unmatched patterns), `FlatESLint`, `Linter` (verify / verifyAndFix, eslintrc
 * or flat config, pre/postprocess, reportUnusedDisableDirectives, disableFixes)
 * or the CLI entry `cli.execute(argv)` (options incl. --fix, --quiet,
 * --cache, --rule, --env, --no-eslintrc, --print-config, unknown options).
 * Each case draws from its own PRNG seeded with `<seed>-<i>`.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const cap = require('./_capture');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'eslint', 2500);
}

// ------------------------------------------------------------ code snippets
const SNIPPETS = [
  () => 'var count = 1;',
  () => 'let unusedThing = 2;',
  () => 'const same = a == b;',
  (R) => `const msg = ${R.pick(['"double"', "'single'", '`tpl ${count}`'])}`,
  () => 'function add(x, y) { return x + y }',
  () => 'function noop(a, b) {\n  return;\n  console.log("unreachable");\n}',
  () => 'console.log("hello");',
  () => 'debugger;',
  () => 'undeclared = undeclared + 1;',
  () => 'if (count) count++',
  () => 'const arrow = (v) => { return v * 2; };',
  () => 'class Shape { constructor(n) { this.n = n; } get area() { return this.n * 2; } }',
  () => 'async function load() { const r = await fetch("/x"); return r; }',
  () => 'switch (count) {\n  case 1:\n    count = 2;\n  case 2:\n    break;\n  default:\n}',
  () => 'for (var i = 0; i < 10; i++) { if (i == 3) { continue } }',
  () => 'const obj = { a: 1, b: 2, a: 3 };',
  () => 'const re = /ab+c/i; re.test("abc")',
  () => 'let snake_case_name = 1; snake_case_name++;',
  () => 'const long = "' + 'x'.repeat(90) + '";',
  () => 'module.exports = { add };',
  () => 'try { JSON.parse("{") } catch (e) {}',
  () => 'if (a) {\n    b();\n  } else {\n      c();\n}',
  () => 'const { x, ...rest } = { x: 1, y: 2 };',
  () => 'label: for (;;) { break label; }',
  () => 'new Promise(function (resolve) { resolve(); });',
  () => '// eslint-disable-next-line no-console\nconsole.log("allowed");',
  () => '// eslint-disable-next-line no-alert\nlet quiet = 1;',
  () => '/* eslint-disable */\nvar ignoredVar = 1 == 2\n/* eslint-enable */',
  () => '/* eslint-disable no-unused-vars */\nlet x1 = 1;',
  (R) => R.pick(['/* eslint no-console: "off" */', '/* eslint eqeqeq: [2, "smart"] */', '/* eslint semi: ["error", "never"], quotes: 1 */',
    '/* eslint quotes: [2, single */', '/* eslint no-var: error */', '/* eslint-env node, browser */', '/* global foo, bar:writable */',
    '/* exported add */', '/* eslint no-such-rule: 2 */', '/* eslint max-len: [1, {code: 40}] */', '/* eslint curly: "bogus" */']),
  () => 'const a = 1;; const b = 2;',
  () => 'if (foo) { bar() } else if (foo) { baz() }',
  () => 'with (obj) { a = 1 }',
  () => 'var self = this; setTimeout(function () { self.x = 1 }, 0);',
];

const RULES = {
  semi: () => ['error', 'always'], quotes: (R) => ['warn', R.pick(['single', 'double'])], eqeqeq: (R) => R.pick(['error', ['error', 'smart']]),
  'no-unused-vars': (R) => R.pick(['warn', 'error', ['error', { args: 'none' }]]), 'no-undef': () => 'error', 'no-console': (R) => R.pick(['warn', 'off']),
  indent: (R) => ['warn', R.pick([2, 4])], curly: () => 'error', 'prefer-const': () => 'warn', 'no-var': () => 'error', camelcase: () => 'warn',
  'max-len': () => ['warn', { code: 80 }], 'no-debugger': () => 'error', 'no-unreachable': () => 'error', 'no-fallthrough': () => 'warn',
  'comma-dangle': () => ['error', 'always-multiline'], 'arrow-body-style': () => 'warn', 'object-shorthand': () => 'warn', 'no-dupe-keys': () => 'error',
  'no-empty': () => 'warn', 'no-redeclare': () => 'error', 'no-else-return': () => 'warn', 'prefer-arrow-callback': () => 'warn', 'no-shadow': () => 'warn',
  'consistent-this': () => ['warn', 'that'], 'no-alert': () => 'error', 'space-infix-ops': () => 'warn', 'no-extra-semi': () => 'error',
  'no-such-rule': () => 'error', 'local/no-foo': () => 'warn',
};

const PLUGIN_SRC = `'use strict';
module.exports = {
  meta: { name: 'eslint-plugin-local', version: '1.0.0' },
  rules: {
    'no-foo': {
      meta: { type: 'problem', fixable: 'code', schema: [] },
      create(context) {
        return { Identifier(node) { if (node.name === 'foo') context.report({ node, message: 'no foo', fix: (f) => f.replaceText(node, 'bar') }); } };
      },
    },
  },
  processors: {
    md: {
      preprocess(text) {
        const F = String.fromCharCode(96).repeat(3);
        const parts = text.split(F);
        const blocks = [];
        for (let k = 1; k < parts.length; k += 2) {
          const nl = parts[k].indexOf('\\n');
          const lang = parts[k].slice(0, nl).trim();
          blocks.push({ text: parts[k].slice(nl + 1), filename: k + (lang === 'txt' ? '.txt' : '.js') });
        }
        return blocks;
      },
      postprocess(lists) { return [].concat(...lists); },
      supportsAutofix: true,
    },
  },
  configs: { recommended: { plugins: ['local'], rules: { 'local/no-foo': 'warn' } } },
};
`;

const BROKEN = ['function (', 'let let = 1;', 'x => { return', 'const s = "unterminated', 'if (a) {', 'var 1x = 2;'];
const MODULE_ONLY = ['export const answer = 42;', 'import fs from "fs";', 'const data = await load();'];

function genCode(R, n) {
  const out = [];
  for (let k = 0; k < n; k++) out.push(R.pick(SNIPPETS)(R));
  if (R.chance(0.1)) out.splice(R.int(0, out.length), 0, R.pick(MODULE_ONLY));
  if (R.chance(0.08)) out.splice(R.int(0, out.length), 0, R.pick(BROKEN));
  return out.join('\n') + (R.chance(0.8) ? '\n' : '');
}

function genRules(R, n, usePlugin) {
  const keys = Object.keys(RULES).filter((k) => usePlugin || !k.startsWith('local/'));
  const rules = {};
  for (const k of R.sample(keys, n)) {
    if (k === 'no-such-rule' && !R.chance(0.3)) continue;
    rules[k] = RULES[k](R);
  }
  return rules;
}

function writeEslintrc(R, dir, obj) {
  const kind = R.pick(['json', 'json', 'yaml', 'js', 'pkg', 'legacy']);
  if (kind === 'json') fs.writeFileSync(path.join(dir, '.eslintrc.json'), JSON.stringify(obj, null, 2));
  else if (kind === 'yaml') fs.writeFileSync(path.join(dir, '.eslintrc.yml'), toYaml(obj));
  else if (kind === 'js') fs.writeFileSync(path.join(dir, '.eslintrc.js'), 'module.exports = ' + JSON.stringify(obj, null, 2) + ';\n');
  else if (kind === 'pkg') fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', eslintConfig: obj }, null, 2));
  else fs.writeFileSync(path.join(dir, '.eslintrc'), JSON.stringify(obj));
}

function toYaml(obj) {
  // JSON is valid YAML (flow style)
  return JSON.stringify(obj, null, 2) + '\n';
}

function makeProject(R, root, usePlugin, flat) {
  const d = root;
  fs.mkdirSync(path.join(d, 'src', 'lib'), { recursive: true });
  fs.mkdirSync(path.join(d, 'src', 'legacy'), { recursive: true });
  fs.mkdirSync(path.join(d, 'build'), { recursive: true });
  const nfiles = R.int(1, 6);
  const files = ['src/a.js'];
  fs.writeFileSync(path.join(d, 'src/a.js'), genCode(R, R.int(1, 8)));
  for (let k = 0; k < nfiles; k++) {
    const f = R.pick(['src/a.js', 'src/b.js', 'src/lib/util.js', 'src/legacy/old.js', 'src/index.mjs', 'src/c.cjs', 'src/lib/d.js']);
    fs.writeFileSync(path.join(d, f), genCode(R, R.int(1, 8)));
    if (!files.includes(f)) files.push(f);
  }
  fs.writeFileSync(path.join(d, 'build', 'out.js'), 'var built = 1\n');
  if (R.chance(0.3)) fs.writeFileSync(path.join(d, 'src', 'notes.txt'), 'not js');
  if (usePlugin) {
    fs.mkdirSync(path.join(d, 'node_modules', 'eslint-plugin-local'), { recursive: true });
    fs.writeFileSync(path.join(d, 'node_modules', 'eslint-plugin-local', 'index.js'), PLUGIN_SRC);
    fs.writeFileSync(path.join(d, 'node_modules', 'eslint-plugin-local', 'package.json'), '{"name":"eslint-plugin-local","version":"1.0.0","main":"index.js"}');
    if (R.chance(0.7)) {
      fs.writeFileSync(path.join(d, 'src', 'README.md'), '# Doc\n\n```js\nvar foo = 1\nconsole.log(foo)\n```\n\ntext\n\n```txt\nplain\n```\n\n```javascript\nlet y = 2;;\n```\n');
      files.push('src/README.md');
    }
  }
  const ecma = R.pick([5, 2015, 2020, 'latest', 'latest']);
  const sourceType = ecma === 5 && R.chance(0.85) ? 'script' : R.pick(['script', 'module']);
  if (!flat) {
    const cfg = { root: true };
    if (R.chance(0.6)) cfg.extends = R.chance(0.9) ? ['eslint:recommended'] : ['eslint:all'];
    if (usePlugin && R.chance(0.4)) cfg.extends = (cfg.extends || []).concat(['plugin:local/recommended']);
    cfg.env = {};
    for (const e of R.sample(['node', 'browser', 'es2022', 'es6', 'commonjs', 'mocha'], R.int(0, 2))) cfg.env[e] = true;
    cfg.parserOptions = { ecmaVersion: ecma, sourceType };
    if (R.chance(0.3)) cfg.globals = { foo: 'readonly', bar: 'writable', undeclared: R.pick(['writable', 'off']) };
    cfg.rules = genRules(R, R.int(1, 8), usePlugin);
    if (usePlugin) cfg.plugins = ['local'];
    if (R.chance(0.08)) cfg.plugins = (cfg.plugins || []).concat(['nonexistent']);
    if (R.chance(0.1)) cfg.extends = (cfg.extends || []).concat(['missing-shared-config']);
    if (R.chance(0.3)) cfg.overrides = [{ files: ['src/legacy/**'], rules: { 'no-var': 'off', semi: 'off' }, env: { browser: true } }];
    if (usePlugin && R.chance(0.7)) cfg.overrides = (cfg.overrides || []).concat([{ files: ['*.md'], processor: 'local/md' }]);
    if (R.chance(0.2)) cfg.ignorePatterns = ['src/lib/d.js'];
    if (R.chance(0.15)) cfg.noInlineConfig = true;
    if (R.chance(0.2)) cfg.reportUnusedDisableDirectives = true;
    writeEslintrc(R, d, cfg);
    if (R.chance(0.35)) {
      const sub = { rules: genRules(R, R.int(1, 3), false) };
      if (R.chance(0.3)) sub.root = true;
      if (R.chance(0.3)) sub.env = { node: true };
      writeEslintrc(R, path.join(d, 'src', R.pick(['lib', 'legacy'])), sub);
    }
    if (R.chance(0.3)) fs.writeFileSync(path.join(d, '.eslintignore'), R.pick(['build/\n', 'src/legacy/\n', '*.md\n', 'build/\n!build/out.js\n']));
  } else {
    const rules = genRules(R, R.int(1, 8), usePlugin);
    const lines = ["'use strict';"];
    if (usePlugin) lines.push(`const local = require(${JSON.stringify(path.join(d, 'node_modules', 'eslint-plugin-local'))});`);
    lines.push('module.exports = [');
    if (R.chance(0.3)) lines.push('  { ignores: ["build/**"' + (R.chance(0.3) ? ', "src/legacy/**"' : '') + '] },');
    lines.push(`  { files: ["**/*.js", "**/*.mjs", "**/*.cjs"], languageOptions: { ecmaVersion: ${JSON.stringify(ecma === 5 ? 5 : ecma)}, sourceType: ${JSON.stringify(sourceType)}, globals: { console: "readonly", foo: "readonly" } },`);
    if (R.chance(0.2)) lines.push(`    linterOptions: { reportUnusedDisableDirectives: true${R.chance(0.3) ? ', noInlineConfig: true' : ''} },`);
    if (usePlugin) lines.push('    plugins: { local },');
    lines.push(`    rules: ${JSON.stringify(rules)} },`);
    if (usePlugin) lines.push('  { files: ["**/*.md"], plugins: { local }, processor: "local/md" },');
    if (R.chance(0.2)) lines.push('  { files: ["src/legacy/**"], rules: { "no-var": "off" } },');
    if (R.chance(0.05)) lines.push('  { rules: { "not-a-real/rule": "error" } },');
    if (R.chance(0.04)) lines.push('  { files: "notarray" },');
    lines.push('];');
    fs.writeFileSync(path.join(d, 'eslint.config.js'), lines.join('\n') + '\n');
  }
  return { files, ecma, sourceType };
}

async function main() {
  const args = parseArgs(process.argv);
  const nm = path.join(args.deps, 'node_modules');
  const indexDir = path.join(nm, 'eslint', 'lib');
  if (!fs.existsSync(indexDir)) {
    process.stderr.write(`eslint not installed in ${args.deps} (npm ci there)\n`);
    process.exit(1);
  }
  if (args.repo) { process.stdout.write(fs.realpathSync(indexDir) + '\n'); return; }
  if (!args.out) { process.stderr.write('--out FILE required\n'); process.exit(2); }

  const log = new cap.EventLog(args.out, { indexDir });
  cap.hookDebug(log, args.deps, { enable: 'eslint:*,-eslint:code-path' });
  delete process.env.ESLINT_USE_FLAT_CONFIG;
  const { ESLint, Linter } = require(path.join(nm, 'eslint'));
  const { FlatESLint } = require(path.join(indexDir, 'unsupported-api.js'));
  const cli = require(path.join(indexDir, 'cli.js'));
  // the CLI prints results and errors on the console: keep stderr for the summary
  console.log = () => {};
  console.error = () => {};
  console.warn = () => {};
  console.info = () => {};

  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-eslint-'));
  const origCwd = process.cwd();
  process.on('exit', () => { try { process.chdir(origCwd); fs.rmSync(tmpRoot, { recursive: true, force: true }); } catch (e) { /* ignore */ } });

  const PATTERNS = [['src'], ['src'], ['.'], ['.'], ['src/**/*.js'], ['src/a.js'], ['src/a.js', 'src/b.js'], ['src/missing.js'], ['build/out.js'],
    ['src/lib', 'src/a.js'], ['src/*.md', 'src/a.js'], ['nothing/**'], ['src/legacy', 'src/lib', 'src/a.js']];

  async function eslintrcCase(R, d, proj, usePlugin) {
    const opts = { cwd: d };
    if (R.chance(0.35)) opts.fix = R.chance(0.8) ? true : (m) => m.severity === 1;
    if (opts.fix && R.chance(0.3)) opts.fixTypes = R.sample(['problem', 'suggestion', 'layout', 'directive'], R.int(1, 2));
    if (R.chance(0.3)) { opts.cache = true; opts.cacheLocation = path.join(d, R.chance(0.5) ? '.cache/' : '.eslintcache'); if (R.chance(0.3)) opts.cacheStrategy = 'content'; }
    if (R.chance(0.1)) opts.useEslintrc = false;
    if (R.chance(0.2)) opts.overrideConfig = { rules: genRules(R, R.int(1, 3), false) };
    if (R.chance(0.1)) opts.ignore = false;
    if (R.chance(0.1)) opts.ignorePath = path.join(d, R.pick(['.gitignore', '.eslintignore']));
    if (R.chance(0.2)) opts.errorOnUnmatchedPattern = false;
    if (R.chance(0.1)) opts.globInputPaths = false;
    if (usePlugin || R.chance(0.1)) opts.extensions = ['.js', '.md', '.mjs', '.cjs'];
    if (R.chance(0.1)) opts.reportUnusedDisableDirectives = R.pick(['error', 'warn']);
    if (R.chance(0.05)) opts.rulePaths = [path.join(d, 'rules-missing')];
    if (R.chance(0.04)) opts.bogusOption = 1; // invalid options error
    const eslint = new ESLint(opts);
    if (R.chance(0.2)) {
      const results = await eslint.lintText(genCode(R, R.int(1, 6)), R.chance(0.7) ? { filePath: path.join(d, R.pick(['src/x.js', 'build/y.js', 'src/README.md'])), warnIgnored: R.chance(0.5) } : {});
      if (opts.fix) await ESLint.outputFixes(results);
      return;
    }
    const patterns = R.pick(PATTERNS);
    const results = await eslint.lintFiles(patterns);
    if (opts.fix) await ESLint.outputFixes(results);
    if (R.chance(0.2)) await eslint.calculateConfigForFile(path.join(d, R.pick(proj.files)));
    if (R.chance(0.1)) await eslint.isPathIgnored(path.join(d, 'build/out.js'));
    if (opts.cache && R.chance(0.8)) {
      // second run: cache hits (and misses for the files changed meanwhile)
      if (R.chance(0.5)) fs.appendFileSync(path.join(d, R.pick(proj.files)), '\nvar changed = 1\n');
      const eslint2 = new ESLint(opts);
      await eslint2.lintFiles(patterns);
    }
    if (R.chance(0.15)) (await eslint.loadFormatter(R.pick(['stylish', 'json', 'compact-missing']))).format(results);
  }

  async function flatCase(R, d, proj) {
    const opts = { cwd: d };
    if (R.chance(0.35)) opts.fix = true;
    if (R.chance(0.3)) { opts.cache = true; opts.cacheLocation = path.join(d, '.eslintcache'); }
    if (R.chance(0.1)) opts.overrideConfigFile = path.join(d, R.chance(0.5) ? 'eslint.config.js' : 'missing.config.js');
    if (R.chance(0.15)) opts.overrideConfig = { rules: genRules(R, R.int(1, 2), false) };
    if (R.chance(0.1)) opts.ignore = false;
    if (R.chance(0.15)) opts.errorOnUnmatchedPattern = false;
    if (R.chance(0.05)) opts.warnIgnored = false;
    const eslint = new FlatESLint(opts);
    if (R.chance(0.2)) {
      await eslint.lintText(genCode(R, R.int(1, 6)), { filePath: path.join(d, R.pick(['src/x.js', 'build/y.js'])) });
      return;
    }
    const patterns = R.pick(PATTERNS);
    const results = await eslint.lintFiles(patterns);
    if (opts.fix) await FlatESLint.outputFixes(results);
    if (opts.cache && R.chance(0.8)) {
      if (R.chance(0.5)) fs.appendFileSync(path.join(d, R.pick(proj.files)), '\nvar changed = 1\n');
      await new FlatESLint(opts).lintFiles(patterns);
    }
  }

  function linterCase(R) {
    const flat = R.chance(0.35);
    const linter = new Linter(flat ? { configType: 'flat' } : {});
    const runs = R.int(1, 3);
    for (let k = 0; k < runs; k++) {
      const code = genCode(R, R.int(1, 8));
      const rules = genRules(R, R.int(1, 6), false);
      const filename = R.pick(['a.js', 'x/y.js', 'doc.md', 'mod.mjs', undefined]);
      if (flat) {
        const cfg = [{ files: ['**/*.js', '**/*.mjs', '**/*.md'], rules, languageOptions: R.pick([{ ecmaVersion: 5, sourceType: 'script' }, { ecmaVersion: 2015, sourceType: 'module' }, { ecmaVersion: 'latest', sourceType: R.pick(['script', 'module']) }, { ecmaVersion: 5, sourceType: 'module' }]) }];
        if (R.chance(0.3)) cfg[0].linterOptions = { reportUnusedDisableDirectives: true };
        if (R.chance(0.3)) linter.verifyAndFix(code, cfg, filename || 'a.js');
        else linter.verify(code, cfg, filename);
      } else {
        const cfg = { rules, parserOptions: R.pick([{ ecmaVersion: 5 }, { ecmaVersion: 2015, sourceType: 'module' }, { ecmaVersion: 2022, sourceType: R.pick(['script', 'module']) }, { ecmaVersion: 'latest' }, { ecmaVersion: 5, sourceType: 'module' }]), env: R.chance(0.5) ? { node: true } : {} };
        if (R.chance(0.2)) cfg.globals = { foo: 'readonly' };
        const o = { filename };
        if (R.chance(0.3)) {
          o.preprocess = (text) => text.split('\n\n').map((t, j) => (j % 2 ? { text: t, filename: `${j}.js` } : t));
          o.postprocess = (lists) => [].concat(...lists);
        }
        if (R.chance(0.2)) o.reportUnusedDisableDirectives = true;
        if (R.chance(0.1)) o.disableFixes = true;
        if (R.chance(0.1)) o.allowInlineConfig = false;
        if (R.chance(0.35)) linter.verifyAndFix(code, cfg, o);
        else linter.verify(code, cfg, o);
      }
    }
  }

  async function cliCase(R, d) {
    const argv = ['node', 'eslint'];
    if (R.chance(0.3)) argv.push('--fix');
    if (R.chance(0.2)) argv.push('--quiet');
    if (R.chance(0.2)) argv.push('--cache', '--cache-location', path.join(d, '.cli-cache'));
    if (R.chance(0.2)) argv.push('--no-eslintrc');
    if (R.chance(0.3)) argv.push('--rule', R.pick(['semi: error', 'quotes: [warn, single]', 'eqeqeq: 2', 'no-undef: error']));
    if (R.chance(0.2)) argv.push('--env', R.pick(['node', 'browser,es2022']));
    if (R.chance(0.1)) argv.push('--ext', '.js,.md');
    if (R.chance(0.1)) argv.push('--max-warnings', '0');
    if (R.chance(0.05)) argv.push('--print-config', 'src/a.js');
    if (R.chance(0.05)) argv.push('--bogus-flag');
    if (R.chance(0.05)) argv.push('--fix-dry-run', '--fix');
    if (R.chance(0.1)) argv.push('--report-unused-disable-directives');
    argv.push(...R.pick(PATTERNS));
    process.chdir(d);
    try {
      if (R.chance(0.15)) await cli.execute(argv.concat(['--stdin', '--stdin-filename', 'src/in.js']), genCode(R, 3), false);
      else await cli.execute(argv, null, false);
    } finally {
      process.chdir(origCwd);
    }
  }

  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) {
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    log.caseId = `c${String(i).padStart(5, '0')}`;
    const d = path.join(tmpRoot, `p${i}`);
    fs.mkdirSync(d);
    try {
      const k = R.rand();
      const usePlugin = R.chance(0.3);
      if (k < 0.45) await eslintrcCase(R, d, makeProject(R, d, usePlugin, false), usePlugin);
      else if (k < 0.65) await flatCase(R, d, makeProject(R, d, usePlugin, true));
      else if (k < 0.82) linterCase(R);
      else { makeProject(R, d, usePlugin, false); await cliCase(R, d); }
    } catch (e) {
      if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId}: ${String(e.message).split('\n')[0]}\n`);
    }
    log.endCase();
    fs.rmSync(d, { recursive: true, force: true });
  }
  await log.finish();
  process.chdir(origCwd);
  fs.rmSync(tmpRoot, { recursive: true, force: true });
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
