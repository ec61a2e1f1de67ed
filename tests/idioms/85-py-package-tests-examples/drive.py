import recorder
recorder.setup("src")
from payroll.bank import Bank
from payroll.runner import PayrollRun
# only the product code runs: payroll/tests/ and examples/ ship with the package and log alike
for c, (period, limit, staff) in enumerate([
    ("2026-10", 10000, [("ann", 3100.0, "DE02ABCD"), ("bob", 2900.5, "FR76EFGH")]),
    ("2026-11", 3000, [("ann", 3100.0, "DE02ABCD"), ("cy", 1200.0, ""), ("dee", 2500.0, "NL91IJKL")]),
    ("2026-12", 10000, [("eve", 4400.25, "BE68MNOP"), ("fay", 0.0, "")]),
]):
    recorder.case(c)
    PayrollRun(period, Bank(limit)).pay(staff)
recorder.write()
