#!/usr/bin/env python3
"""No two files of a module call each other in a circle.

Reads the object files the build made of each module's sources (nm: what
each defines and what it leaves undefined) and finds the strongly
connected groups of the graph "file A calls a function file B defines".
A module's files stand in layers, each calling only the ones below it, so
a new maintainer can read one file knowing only what is under it; a
circle means two files have to be read together.

    tests/lint_calls.py BUILD_DIR MODULE...

Prints each circle with the functions that close it; exits 1 if any.
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDRB":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def circles(edges, nodes):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, modules = sys.argv[1], sys.argv[2:]
    bad = 0
    for m in modules:
        target = "pmrag" if m == "cmd" else "pmrag_" + m
        objs = sorted(glob.glob(os.path.join(build, m, "CMakeFiles", target + ".dir", "*.o")))
        if not objs:
            print("lint: calls: no object files of %s/ under %s: build first" % (m, build),
                  file=sys.stderr)
            return 2
        syms = {os.path.basename(o)[:-2]: symbols(o) for o in objs}
        edges = {a: {b for b in syms if b != a and syms[a][1] & syms[b][0]} for a in syms}
        for comp in circles(edges, syms):
            bad += 1
            print("lint: %s/ files that call each other in a circle: %s" % (m, ", ".join(comp)),
                  file=sys.stderr)
            for a in comp:
                for b in comp:
                    if b in edges[a]:
                        print("  %s -> %s: %s" % (a, b, ", ".join(sorted(syms[a][1] & syms[b][0]))),
                              file=sys.stderr)
    print("lint: calls: %d modules, %d circles among their files" % (len(modules), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
