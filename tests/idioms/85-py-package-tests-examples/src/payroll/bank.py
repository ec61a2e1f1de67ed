from .runner import BankError


class Bank:
    def __init__(self, limit):
        self.limit = limit
        self.count = 0

    def transfer(self, iban, amount):
        if amount > self.limit:
            raise BankError("amount %.2f over the daily limit %.2f" % (amount, self.limit))
        self.count += 1
        return "%s-%04d" % (iban[:4], self.count)
