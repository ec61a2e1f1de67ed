import sys, traceback, io
import recorder
recorder.setup("src")
# traceback.print_exc writes the whole traceback with one call: keep it as one multi-line event
_orig = traceback.print_exc
def _pe(*a, **k):
    b = io.StringIO(); _orig(file=b)
    recorder.record(b.getvalue().rstrip("\n"), sys._getframe(1))
traceback.print_exc = _pe
from plug.loader import load_plugins
for c, ns in enumerate([["auth", "cache"], ["broken_a", "x"], ["y", "broken_b", "z"]]):
    recorder.case(c)
    load_plugins(ns)
recorder.write()
