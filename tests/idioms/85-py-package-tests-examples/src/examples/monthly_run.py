"""Example: a month's payroll against the sandbox bank, printing what it does."""
import logging

from payroll.bank import Bank
from payroll.runner import PayrollRun

STAFF = [("ann", 3100.0, "DE02..."), ("bob", 2900.5, ""), ("cy", 12000.0, "FR76...")]


def main():
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    print("Payroll run 2026-12 started for %d employees" % len(STAFF))
    PayrollRun("2026-12", Bank(limit=10000)).pay(STAFF)
    print("Paying done; check the sandbox for the transfers")


if __name__ == "__main__":
    main()
