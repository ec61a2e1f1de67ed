import recorder
# the message column is the whole record, log.exception's traceback included
recorder.setup("src")
from pickpath import set_verbose
from pickpath.wave import run_wave
for c, (verbose, stock, picker, stops, lines) in enumerate([
    (True, {"A1": 5, "B2": 3}, "ana", [("A", 1), ("B", 2)], [("A1", 2), ("B2", 1)]),
    (False, {"A1": 1}, "ben", [("A", 1), ("C", 4), ("C", 9), ("D", 2), ("F", 11)], [("A1", 1), ("C4", 2)]),
    (True, {"Z9": 4, "Y3": 2}, "cho", [("Z", 9), ("Y", 3), ("Y", 7), ("X", 1), ("W", 5), ("V", 2)], [("Z9", 4), ("Y3", 3), ("Z9", 1)]),
    (True, {"K2": 2}, "dev", [("K", 2)], [("K2", "2")]),
]):
    recorder.case(c)
    set_verbose(verbose)
    try:
        run_wave(c + 1, stock, picker, stops, lines)
    except TypeError:
        pass  # a quantity that is no number: the wave logged it and let the error through
recorder.write()
