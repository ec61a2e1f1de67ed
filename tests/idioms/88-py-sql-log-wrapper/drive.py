import recorder
# _log_sql and _log_rows only log what they are handed: their caller emits the statements, parameters and rows
recorder.setup("src", skip=["_log_sql", "_log_rows"])
from loans.library import Library
for c, (echo, lends, today) in enumerate([
    (False, [("ann", "978-0-14-044913-6", "2026-12-20")], "2026-12-06"),
    (True, [("bob", "978-0-19-953556-9", "2026-11-30"), ("cy", "978-0-19-953556-9", "2026-12-24")], "2026-12-06"),
    (True, [("dee", "978-1-85326-000-1", "2026-12-01"), ("eve", "978-0-14-303943-3", "2026-12-02")], "2026-12-06"),
]):
    recorder.case(c)
    lib = Library(echo_rows=echo)
    for member, isbn, due in lends:
        lib.lend(member, isbn, due)
    lib.overdue(today)
recorder.write()
