import logging
import unittest

from payroll.runner import BankError, PayrollRun

log = logging.getLogger("payroll.runner")


class FakeBank:
    """Accepts every transfer and logs it as the runner would."""

    def __init__(self, fail_over=None):
        self.fail_over = fail_over

    def transfer(self, iban, amount):
        if self.fail_over is not None and amount > self.fail_over:
            raise BankError("amount %.2f over the daily limit %.2f" % (amount, self.fail_over))
        log.info("Paying %s %.2f for %s (ref %s)", iban, amount, "test", "FAKE")
        return "FAKE"


class PayrollRunTest(unittest.TestCase):
    def test_pays_everyone_with_an_account(self):
        with self.assertLogs("payroll.runner", level="INFO") as cm:
            PayrollRun("2026-11", FakeBank()).pay([("ann", 3100.0, "DE02"), ("bob", 2900.5, "FR76")])
        self.assertIn("INFO:payroll.runner:Paying ann 3100.00 for 2026-11 (ref FAKE)", cm.output)
        self.assertEqual(cm.output[-1], "INFO:payroll.runner:Payroll run 2026-11 finished: 2 paid, 0 skipped")

    def test_skips_without_account(self):
        with self.assertLogs("payroll.runner", level="WARNING") as cm:
            PayrollRun("2026-11", FakeBank()).pay([("cy", 100.0, "")])
        self.assertEqual(cm.output, ["WARNING:payroll.runner:Skipping cy: no bank account"])

    def test_bank_refusal_is_logged(self):
        with self.assertLogs("payroll.runner", level="ERROR") as cm:
            PayrollRun("2026-11", FakeBank(fail_over=10)).pay([("dee", 50.0, "NL91")])
        self.assertTrue(cm.output[0].startswith("ERROR:payroll.runner:Transfer to dee failed: amount 50.00"))


if __name__ == "__main__":
    unittest.main()
