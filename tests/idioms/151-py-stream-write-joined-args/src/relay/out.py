import sys

QUIET = False


def msg(*message):
    """The package's own logging function: its arguments, str() of each,
    joined by blanks, one line on standard error."""
    if QUIET:
        return
    text = " ".join(map(str, message))
    sys.stderr.write(text + "\n")


def note(*words):
    sys.stdout.write("note: " + " ".join(str(w) for w in words) + "\n")
