import logging
import sqlite3

from .db import Database, Table

log = logging.getLogger(__name__)


class Library:
    def __init__(self, echo_rows=False):
        self.db = Database(echo_rows=echo_rows)
        self.loans = Table(self.db, "loans", [("member", "TEXT"), ("isbn", "TEXT UNIQUE"), ("due", "TEXT")])
        self.loans.create()

    def lend(self, member, isbn, due):
        try:
            self.loans.insert(member=member, isbn=isbn, due=due)
        except sqlite3.IntegrityError as e:
            log.warning("%s is already lent out (%s)", isbn, e)
            return False
        self.db.commit()
        return True

    def overdue(self, today):
        return self.db.execute("SELECT member, isbn FROM loans WHERE due < ? ORDER BY due", (today,))
