from datetime import date

import recorder
recorder.setup("src")
from meters.billing import bill
from meters.readings import Reading
for c, (acct, reads, issued) in enumerate([
    ("A-17", [("M1", "2026-01-01T08:00", 120_000), ("M1", "2026-01-31T08:00", 131_500)], date(2026, 2, 7)),
    ("B-03", [("M2", "2026-01-01T09:30", 5_000), ("M2", "2026-02-20T10:15", 61_000)], date(2026, 2, 27)),
    ("C-88", [("M3", "2026-03-01T07:00", 900_000), ("M3", "2026-03-15T07:00", 899_250), ("M3", "2026-03-31T07:00", 1_300_000)], date(2026, 4, 1)),
]):
    recorder.case(c)
    bill(acct, [Reading(*r) for r in reads], issued)
recorder.write()
