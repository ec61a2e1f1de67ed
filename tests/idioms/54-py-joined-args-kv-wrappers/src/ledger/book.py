import logging

from .logutil import log_call, log_kv


class Ledger:
    def __init__(self, name):
        self.name = name
        self.balance = 0

    def post(self, account, amount):
        log_call("posting", amount, "to", account, "in", self.name)
        self.balance += amount
        if self.balance < 0:
            log_call("ledger", self.name, "is overdrawn by", -self.balance, level=logging.WARNING)

    def reverse(self, entries):
        log_call(*["reversing", len(entries), "entries:"], *entries)

    def close(self, period):
        log_kv("period_closed", ledger=self.name, period=period, balance=self.balance)
        log_kv("audit_trail_sealed", actor="system", period=period)
