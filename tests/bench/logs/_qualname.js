'use strict';
/*
 * (file, line) -> qualified name of the innermost enclosing *named* function,
 * method or class, for JavaScript and TypeScript sources, like `_capture.py`'s
 * QualnameIndex does with `ast` for Python.
 *
 * The parser is the `typescript` npm package (pinned in the generator's own
 * package.json, passed in by the caller), which parses both .ts and .js.
 *
 * Naming rules (best effort, `Class.method` style, nested names dotted):
 *   class C {...}                     -> C
 *   method / constructor / get / set  -> name / "constructor"
 *   function f() {...}                -> f
 *   const f = () => {...} / function  -> f      (variable declarator)
 *   { f: () => {...} } / { f() {} }   -> f      (object-literal property)
 *   x.f = function () {...}           -> f      (assignment to a property)
 *   class field  f = () => {...}      -> f
 * Anonymous functions (callbacks) add no name, so a line inside a callback
 * belongs to the named function around it (Python's lambdas behave the same).
 */
const fs = require('fs');

class QualnameIndex {
  constructor(ts) {
    this.ts = ts;
    this._spans = new Map();
  }

  _nameOf(node) {
    const ts = this.ts;
    const n = node.name;
    if (!n) return null;
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
    if (ts.isComputedPropertyName(n)) return null;
    return null;
  }

  _funcName(node) {
    const ts = this.ts;
    const k = node.kind;
    if (k === ts.SyntaxKind.Constructor) return 'constructor';
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node) || ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      const own = this._nameOf(node);
      if (own) return own;
    }
    if (ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isClassExpression(node)) {
      if (ts.isFunctionExpression(node) && node.name) return node.name.text;
      let p = node.parent;
      while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isTypeAssertionExpression(p))) p = p.parent;
      if (!p) return null;
      if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.initializer) {
        return this._nameOf(p);
      }
      if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && p.right) {
        const l = p.left;
        if (ts.isPropertyAccessExpression(l)) return l.name.text;
        if (ts.isIdentifier(l)) return l.text;
      }
    }
    return null;
  }

  _load(file, text) {
    const ts = this.ts;
    const spans = [];
    let src = text;
    if (src == null) {
      try {
        src = fs.readFileSync(file, 'utf8');
      } catch (e) {
        this._spans.set(file, spans);
        return spans;
      }
    }
    const kind = /\.tsx?$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
    const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, kind);
    const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
    const walk = (node, prefix) => {
      ts.forEachChild(node, (child) => {
        const name = this._funcName(child);
        if (name) {
          const q = prefix + name;
          spans.push([lineOf(child.getStart(sf)), lineOf(child.getEnd()), q, name]);
          walk(child, q + '.');
        } else {
          walk(child, prefix);
        }
      });
    };
    walk(sf, '');
    this._spans.set(file, spans);
    return spans;
  }

  /** [qualname, function] of the innermost named scope around `line`, or ['', ''] at module level. */
  lookup(file, line, text) {
    let spans = this._spans.get(file);
    if (spans === undefined) spans = this._load(file, text);
    let best = null;
    for (const s of spans) {
      if (s[0] <= line && line <= s[1] && (best === null || s[0] >= best[0])) best = s;
    }
    return best ? [best[2], best[3]] : ['', ''];
  }
}

module.exports = { QualnameIndex };
