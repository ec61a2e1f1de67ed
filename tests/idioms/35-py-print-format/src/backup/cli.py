import sys


def eprint(*args, **kwargs):
    print(*args, file=sys.stderr, **kwargs)


def scan(root, n):
    print("Scanning %s ..." % root)
    print("found %d files (%.1f MB)" % (n, n * 0.25))


def copy(root, dest, n):
    print("Copying {} files to {}".format(n, dest))
    if n > 100:
        eprint("warning: large backup of", n, "files")


def verify(dest, bad):
    if bad:
        eprint(f"error: {bad} checksum mismatches in {dest}")
    print("Backup written to %s" % dest, flush=True)


def main(root, dest, n, bad):
    scan(root, n)
    copy(root, dest, n)
    verify(dest, bad)
