import sys


def eprint(*args, **kwargs):
    print(*args, file=sys.stderr, **kwargs)


def load(path, n):
    print("loading", path, "...", sep=" ")
    print(f"read {n} records from {path}", file=sys.stderr)


def validate(bad):
    if bad:
        sys.stderr.write("error: %d invalid records\n" % bad)
        sys.stderr.write("hint: run with --fix to repair them\n")
    else:
        sys.stdout.write("all records valid\n")


def report(path, n, bad):
    eprint("summary:", n, "records,", bad, "invalid")
    print("wrote report to %s.out" % path, flush=True)


def main(path, n, bad):
    load(path, n)
    validate(bad)
    report(path, n, bad)
