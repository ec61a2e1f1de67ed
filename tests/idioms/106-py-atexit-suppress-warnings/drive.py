import atexit
import recorder
recorder.setup("src")
from inkq.spool import Spooler
# each case is one run of the spooler: atexit._run_exitfuncs() runs (and clears) its exit handlers
for c, (printer, jobs, cancels, printed) in enumerate([
    ("hall-laser", [("j01", 12, "A4", False), ("j02", 3, "A3", False)], [], 2),
    ("lab-color", [("j10", 600, "A4", True), ("j11", 400, "tabloid", False)], ["j10", "j99"], 0),
    ("office", [("j20", 1, "letter", False), ("j21", 520, "legal", True), ("j22", 8, "A4", True)], ["j22"], 1),
]):
    recorder.case(c)
    s = Spooler(printer)
    for job, pages, paper, duplex in jobs:
        s.submit(job, pages, paper, duplex)
    for job in cancels:
        s.cancel(job)
    for _ in range(printed):
        s.print_next()
    atexit._run_exitfuncs()
recorder.write()
