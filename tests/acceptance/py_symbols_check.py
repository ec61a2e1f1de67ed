#!/usr/bin/python3
"""Acceptance checker: pmrag's Python symbols against CPython's own `ast`.

    py_symbols_check.py ROOT SYMBOLS.json [--min-recall 0.99] [--min-precision 0.99]
                        [--min-endline 0.95] [--show N] [--exclude-dir NAME ...]

Truth: every FunctionDef / AsyncFunctionDef / ClassDef at any depth in every
.py/.pyi file under ROOT (walking everything except `.git` and `__pycache__`,
plus any --exclude-dir names). A truth item is (file, name, lineno of the
def/class keyword, end_lineno). Truth kind: class for ClassDef, method for a
function directly in a class body, function otherwise. Files that `ast`
cannot parse are listed and excluded from truth AND from the tool-symbol
denominator.

Matching is one-to-one: a tool symbol of kind class/function/method in the
same file with the same name whose [start_line, end_line] contains the truth
lineno; among several, the one whose start is closest to and not after the
lineno wins (pairs are assigned greedily by that distance over the whole file,
so each truth item and each tool symbol is used at most once).

Reported: recall (matched truth / truth), precision (matched tool symbols /
tool symbols of kind class|function|method in .py/.pyi files), end-line
agreement (matched pairs with end_line == end_lineno / matched), start-line
agreement (start_line == first decorator line, else the def line; informational
unless --min-startline is given), per-kind
counts, kind disagreements (informational), and the first N misses of each
sort. One JSON summary line on stdout, details on stderr. Exit 1 if any
threshold fails, 2 on usage / input errors.
"""
import argparse
import ast
import json
import os
import sys
import time
from collections import Counter, defaultdict

DEF_KINDS = ("class", "function", "method")
SKIP_DIRS_DEFAULT = (".git", "__pycache__")


def err(*a):
    print(*a, file=sys.stderr)


def walk_files(root, skip_dirs):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
        for fn in sorted(filenames):
            if fn.endswith(".py") or fn.endswith(".pyi"):
                full = os.path.join(dirpath, fn)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                out.append((rel, full))
    return out


class TruthCollector(ast.NodeVisitor):
    def __init__(self, rel):
        self.rel = rel
        self.items = []
        self.stack = []  # enclosing node types

    def _add(self, node, kind):
        self.items.append({
            "file": self.rel,
            "name": node.name,
            "line": node.lineno,
            "end": node.end_lineno,
            "start": min([d.lineno for d in node.decorator_list] + [node.lineno]),
            "kind": kind,
        })

    def visit_ClassDef(self, node):
        self._add(node, "class")
        self.stack.append("class")
        self.generic_visit(node)
        self.stack.pop()

    def _func(self, node):
        in_class = bool(self.stack) and self.stack[-1] == "class"
        self._add(node, "method" if in_class else "function")
        self.stack.append("function")
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = _func
    visit_AsyncFunctionDef = _func


def collect_truth(root, skip_dirs):
    truth = []
    files = walk_files(root, skip_dirs)
    bad = []
    for rel, full in files:
        try:
            with open(full, "rb") as f:
                src = f.read()
            tree = ast.parse(src, filename=rel)
        except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError) as e:
            bad.append((rel, "%s: %s" % (type(e).__name__, e)))
            continue
        c = TruthCollector(rel)
        c.visit(tree)
        truth.extend(c.items)
    return files, bad, truth


def load_symbols(path):
    with open(path, "rb") as f:
        data = json.loads(f.read().decode("utf-8"))
    if not isinstance(data, list):
        raise ValueError("top level is not a JSON array")
    good, malformed = [], []
    fields = {"id": int, "kind": str, "name": str, "qualname": str, "file": str,
              "start_line": int, "end_line": int}
    for i, s in enumerate(data):
        ok = isinstance(s, dict) and all(
            k in s and isinstance(s[k], t) and not (t is int and isinstance(s[k], bool))
            for k, t in fields.items())
        if ok:
            good.append(s)
        else:
            malformed.append((i, s))
    return good, malformed


def match(truth, tool):
    """Greedy one-to-one matching per (file, name), by distance lineno - start."""
    by_key_truth = defaultdict(list)
    for ti, t in enumerate(truth):
        by_key_truth[(t["file"], t["name"])].append(ti)
    by_key_tool = defaultdict(list)
    for si, s in enumerate(tool):
        by_key_tool[(s["file"], s["name"])].append(si)
    t2s, s2t = {}, {}
    for key, tis in by_key_truth.items():
        sis = by_key_tool.get(key)
        if not sis:
            continue
        pairs = []
        for ti in tis:
            ln = truth[ti]["line"]
            for si in sis:
                s = tool[si]
                if s["start_line"] <= ln <= s["end_line"]:
                    # closest start first; then prefer an equal end line; then
                    # the shorter span; then stable by index
                    pairs.append((ln - s["start_line"],
                                  0 if s["end_line"] == truth[ti]["end"] else 1,
                                  s["end_line"] - s["start_line"], ti, si))
        pairs.sort()
        for _, _, _, ti, si in pairs:
            if ti in t2s or si in s2t:
                continue
            t2s[ti] = si
            s2t[si] = ti
    return t2s, s2t


def ratio(num, den):
    return None if den == 0 else num / den


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("symbols")
    ap.add_argument("--min-recall", type=float, default=0.99)
    ap.add_argument("--min-precision", type=float, default=0.99)
    ap.add_argument("--min-endline", type=float, default=0.95)
    ap.add_argument("--min-startline", type=float, default=0.0,
                    help="threshold for start_line == first decorator / def line (default 0: informational)")
    ap.add_argument("--show", type=int, default=10, help="misses of each sort to list (stderr)")
    ap.add_argument("--exclude-dir", action="append", default=[],
                    help="extra directory name to skip (repeatable)")
    args = ap.parse_args()

    if not os.path.isdir(args.root):
        err("py_symbols_check: not a directory: %s" % args.root)
        return 2
    t0 = time.monotonic()
    skip = set(SKIP_DIRS_DEFAULT) | set(args.exclude_dir)
    files, bad, truth = collect_truth(args.root, skip)
    t_truth = time.monotonic() - t0
    try:
        syms, malformed = load_symbols(args.symbols)
    except (OSError, ValueError) as e:
        err("py_symbols_check: cannot read %s: %s" % (args.symbols, e))
        return 2

    bad_files = {b[0] for b in bad}
    known_files = {rel for rel, _ in files}
    py_syms = [s for s in syms if s["file"].endswith((".py", ".pyi"))]
    tool = [s for s in py_syms if s["kind"] in DEF_KINDS and s["file"] not in bad_files]
    unknown_file_syms = [s for s in tool if s["file"] not in known_files]
    bad_span = [s for s in tool if s["start_line"] < 1 or s["end_line"] < s["start_line"]]

    t2s, s2t = match(truth, tool)
    n_truth, n_tool, n_match = len(truth), len(tool), len(t2s)
    end_ok = sum(1 for ti, si in t2s.items() if tool[si]["end_line"] == truth[ti]["end"])
    recall = ratio(n_match, n_truth)
    precision = ratio(len(s2t), n_tool)
    endline = ratio(end_ok, n_match)
    start_ok = sum(1 for ti, si in t2s.items() if tool[si]["start_line"] == truth[ti]["start"])
    startline = ratio(start_ok, n_match)

    per_kind = {}
    for k in DEF_KINDS:
        tk = [i for i, t in enumerate(truth) if t["kind"] == k]
        mk = sum(1 for i in tk if i in t2s)
        per_kind[k] = {"truth": len(tk), "matched": mk,
                       "recall": ratio(mk, len(tk)),
                       "tool": sum(1 for s in tool if s["kind"] == k)}
    kind_disagree = Counter()
    for ti, si in t2s.items():
        if tool[si]["kind"] != truth[ti]["kind"]:
            kind_disagree["%s->%s" % (truth[ti]["kind"], tool[si]["kind"])] += 1

    def fails(value, minimum, den_empty_ok):
        if value is None:
            return not den_empty_ok
        return value < minimum

    failed = []
    if fails(recall, args.min_recall, True):
        failed.append("recall")
    if fails(precision, args.min_precision, n_truth == 0):
        failed.append("precision")
    if fails(endline, args.min_endline, n_truth == 0):
        failed.append("endline")
    if args.min_startline > 0 and fails(startline, args.min_startline, n_truth == 0):
        failed.append("startline")

    summary = {
        "checker": "py_symbols",
        "root": args.root,
        "python": "%d.%d.%d" % sys.version_info[:3],
        "files": len(files),
        "unparsable_files": len(bad),
        "truth": n_truth,
        "tool": n_tool,
        "matched": n_match,
        "recall": recall,
        "precision": precision,
        "endline": endline,
        "endline_ok": end_ok,
        "startline": startline,
        "startline_ok": start_ok,
        "per_kind": per_kind,
        "kind_disagreements": dict(kind_disagree),
        "tool_symbols_total": len(syms),
        "tool_malformed": len(malformed),
        "tool_unknown_file": len(unknown_file_syms),
        "tool_bad_span": len(bad_span),
        "truth_seconds": round(t_truth, 3),
        "seconds": round(time.monotonic() - t0, 3),
        "thresholds": {"recall": args.min_recall, "precision": args.min_precision,
                       "endline": args.min_endline, "startline": args.min_startline},
        "failed": failed,
        "pass": not failed,
    }

    # ---- details on stderr ----
    n = args.show
    if bad:
        err("# files ast cannot parse (excluded): %d" % len(bad))
        for rel, why in bad:
            err("  %s  %s" % (rel, why))
    if malformed:
        err("# malformed tool symbols (ignored): %d" % len(malformed))
        for i, s in malformed[:n]:
            err("  [%d] %s" % (i, json.dumps(s)[:200]))
    if unknown_file_syms:
        files_unknown = sorted({s["file"] for s in unknown_file_syms})
        err("# tool symbols in files not found under ROOT: %d (in %d files)"
            % (len(unknown_file_syms), len(files_unknown)))
        for f in files_unknown[:n]:
            err("  %s" % f)
    miss_truth = [t for i, t in enumerate(truth) if i not in t2s]
    err("# truth items missed by the tool: %d" % len(miss_truth))
    for t in miss_truth[:n]:
        err("  %s:%d  %s %s (end %d)" % (t["file"], t["line"], t["kind"], t["name"], t["end"]))
    extra = [s for i, s in enumerate(tool) if i not in s2t]
    err("# tool symbols matching no truth item: %d" % len(extra))
    for s in extra[:n]:
        err("  %s:%d-%d  %s %s" % (s["file"], s["start_line"], s["end_line"], s["kind"], s["name"]))
    end_bad = [(truth[ti], tool[si]) for ti, si in sorted(t2s.items())
               if tool[si]["end_line"] != truth[ti]["end"]]
    err("# matched with a wrong end line: %d" % len(end_bad))
    for t, s in end_bad[:n]:
        err("  %s:%d  %s %s  end: truth %d, tool %d"
            % (t["file"], t["line"], t["kind"], t["name"], t["end"], s["end_line"]))
    start_bad = [(truth[ti], tool[si]) for ti, si in sorted(t2s.items())
                 if tool[si]["start_line"] != truth[ti]["start"]]
    err("# matched with a start line other than the first decorator / def line: %d" % len(start_bad))
    for t, s in start_bad[:n]:
        err("  %s:%d  %s %s  start: truth %d, tool %d"
            % (t["file"], t["line"], t["kind"], t["name"], t["start"], s["start_line"]))
    kd = [(truth[ti], tool[si]) for ti, si in sorted(t2s.items())
          if tool[si]["kind"] != truth[ti]["kind"]]
    if kd:
        err("# kind disagreements (informational): %d" % len(kd))
        for t, s in kd[:n]:
            err("  %s:%d  %s: truth %s, tool %s" % (t["file"], t["line"], t["name"], t["kind"], s["kind"]))
    err("# %s" % ("PASS" if not failed else "FAIL: " + ", ".join(failed)))

    print(json.dumps(summary, sort_keys=False))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
