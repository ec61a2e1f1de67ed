#!/usr/bin/env python3
"""Check an orderflow event log against the source that produced it.

    python3 check_log.py events.csv          # validate an existing log
    ../../otel-python.sh check_log.py --simulate
                                             # simulate twice, compare, validate

--simulate runs the simulator with this Python, which needs the
OpenTelemetry SDK (deploy/otel-python.sh is the Python that has it).

For every distinct (code.filepath, code.lineno) in the log the source line
must contain the call that emitted the row (a logger/helper call for log
rows, a span start for SPAN rows, a span start or add_event for EVENT rows),
and code.function must be the function enclosing that line. Rows must have
a case id and ISO 8601 UTC timestamps that never go backwards. Prints
"N passed, N failed" and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import ast
import csv
import filecmp
import re
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = ["case_id", "timestamp", "activity", "level", "logger",
          "code.filepath", "code.function", "code.lineno"]
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
SPAN_CALL = re.compile(r"\.start_(as_current_)?span\(")
EVENT_CALL = re.compile(r"\.(add_event|record_exception)\(")
LOG_CALL = re.compile(r"(\blog_event\(|\baudit\(|\blog_retry\(|"
                      r"\.(debug|info|warning|error|exception|critical|log)\()")


@lru_cache(maxsize=None)
def source_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@lru_cache(maxsize=None)
def function_ranges(path: Path) -> list[tuple[int, int, str]]:
    """(first line incl. decorators, last line, name) of every function in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ranges = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            ranges.append((first, node.end_lineno or node.lineno, node.name))
    return ranges


def enclosing_function(path: Path, lineno: int) -> str:
    inside = [r for r in function_ranges(path) if r[0] <= lineno <= r[1]]
    if not inside:
        return "<module>"
    return min(inside, key=lambda r: r[1] - r[0])[2]


def check_site(root: Path, filepath: str, lineno: int, function: str, level: str) -> str | None:
    path = root / filepath
    if not path.is_file():
        return f"{filepath}: no such file under {root}"
    lines = source_lines(path)
    if not 1 <= lineno <= len(lines):
        return f"{filepath}:{lineno}: line out of range"
    text = lines[lineno - 1]
    if level == "SPAN":
        ok = SPAN_CALL.search(text)
    elif level == "EVENT":
        ok = SPAN_CALL.search(text) or EVENT_CALL.search(text)
    else:
        ok = LOG_CALL.search(text)
    if not ok:
        return f"{filepath}:{lineno}: no {level} call on line: {text.strip()}"
    actual = enclosing_function(path, lineno)
    if actual != function:
        return f"{filepath}:{lineno}: code.function is {function}, enclosing function is {actual}"
    return None


def validate(log: Path, root: Path) -> tuple[int, list[str]]:
    failures: list[str] = []
    checked = 0
    sites: set[tuple[str, int, str, str]] = set()
    with log.open(newline="", encoding="utf-8") as stream:
        reader = csv.reader(stream)
        header = next(reader, None)
        checked += 1
        if header != HEADER:
            failures.append(f"header is {header}, expected {HEADER}")
            return checked, failures
        previous = ""
        for n, row in enumerate(reader, start=2):
            checked += 1
            if len(row) != len(HEADER):
                failures.append(f"row {n}: {len(row)} fields")
                continue
            case_id, ts, activity, level, _, filepath, function, lineno = row
            if not case_id or not activity:
                failures.append(f"row {n}: empty case_id or activity")
            if not TIMESTAMP.match(ts):
                failures.append(f"row {n}: bad timestamp {ts!r}")
            elif ts < previous:
                failures.append(f"row {n}: timestamp {ts} before {previous}")
            else:
                previous = ts
            if "\n" in activity:
                failures.append(f"row {n}: unescaped newline in activity")
            sites.add((filepath, int(lineno), function, level))
    for filepath, lineno, function, level in sorted(sites):
        checked += 1
        problem = check_site(root, filepath, lineno, function, level)
        if problem:
            failures.append(problem)
    return checked, failures


def simulate(out: Path, orders: int, seed: int, root: Path) -> None:
    subprocess.run([sys.executable, "-m", "orderflow.simulate", "--orders", str(orders),
                    "--seed", str(seed), "--out", str(out)], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", nargs="?", type=Path, help="event log CSV to check")
    parser.add_argument("--root", type=Path, default=HERE / "python",
                        help="folder code.filepath is relative to (default: ./python)")
    parser.add_argument("--simulate", action="store_true",
                        help="run the simulator twice, require identical output, then check it")
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.log is None and not args.simulate:
        parser.error("give a log file or --simulate")

    passed, failures = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        log = args.log
        if args.simulate:
            first, second = Path(tmp, "a.csv"), Path(tmp, "b.csv")
            simulate(first, args.orders, args.seed, args.root)
            simulate(second, args.orders, args.seed, args.root)
            if filecmp.cmp(first, second, shallow=False):
                passed += 1
            else:
                failures.append("two runs with the same seed differ")
            log = first
        checked, problems = validate(log, args.root)
    failures += problems
    passed += checked - len(problems)
    for failure in failures[:50]:
        print(f"FAIL {failure}")
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
