import logging

log = logging.getLogger(__name__)


class BankError(Exception):
    pass


class PayrollRun:
    def __init__(self, period, bank):
        self.period = period
        self.bank = bank
        self.paid = 0
        self.skipped = 0

    def pay(self, employees):
        log.info("Payroll run %s started for %d employees", self.period, len(employees))
        for name, amount, iban in employees:
            if self._pay_one(name, amount, iban):
                self.paid += 1
            else:
                self.skipped += 1
        log.info("Payroll run %s finished: %d paid, %d skipped", self.period, self.paid, self.skipped)

    def _pay_one(self, name, amount, iban):
        if not iban:
            log.warning("Skipping %s: no bank account", name)
            return False
        try:
            ref = self.bank.transfer(iban, amount)
        except BankError as e:
            log.error("Transfer to %s failed: %s", name, e)
            return False
        log.info("Paying %s %.2f for %s (ref %s)", name, amount, self.period, ref)
        return True
