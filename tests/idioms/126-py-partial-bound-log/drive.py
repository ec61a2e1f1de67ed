import recorder
recorder.setup("src")
from spool.jobs import Job
from spool.printer import Printer
from spool.spooler import Spooler
for c, (printer, jobs) in enumerate([
    (("lobby", 100, 90, None), [Job("j1", "ann", 3), Job("j2", "bob", 2, copies=2)]),
    (("lab", 12, 50, None), [Job("j3", "cy", 0), Job("j4", "dee", 4, color=True), Job("j5", "eve", 500)]),
    (("attic", 6, 30, None), [Job("j6", "fay", 4, copies=2), Job("j7", "gus", 1)]),
    (("annex", 80, 60, 3), [Job("j8", "hal", 5), Job("j9", "hal", 1), Job("j10", "ivy", 2)]),
    (("lobby", 40, 50, None), [Job("j11", "jo", 3, copies=3, color=True)]),
]):
    recorder.case(c)
    s = Spooler(Printer(*printer))
    s.submit_all(jobs)
    s.run()
recorder.write()
