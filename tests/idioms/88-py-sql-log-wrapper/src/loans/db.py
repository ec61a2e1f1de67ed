import logging
import sqlite3

log = logging.getLogger("loans.sql")


class Database:
    """sqlite3 with every statement, its parameters and the rows it returns
    echoed to the log."""

    def __init__(self, path=":memory:", echo_rows=False):
        self.conn = sqlite3.connect(path)
        self.echo_rows = echo_rows

    def _log_sql(self, statement, params):
        log.info(statement)
        if params:
            log.debug(repr(tuple(params)))

    def _log_rows(self, rows):
        for row in rows:
            log.debug(repr(row))

    def execute(self, statement, params=()):
        self._log_sql(statement, params)
        cur = self.conn.execute(statement, params)
        rows = cur.fetchall()
        if self.echo_rows:
            self._log_rows(rows)
        return rows

    def commit(self):
        self._log_sql("COMMIT", ())
        self.conn.commit()


class Table:
    """Builds the statements of one table from its name and columns."""

    def __init__(self, db, name, columns):
        self.db = db
        self.name = name
        self.columns = columns

    def create(self):
        cols = ", ".join("%s %s" % c for c in self.columns)
        self.db.execute("CREATE TABLE IF NOT EXISTS %s (%s)" % (self.name, cols))

    def insert(self, **values):
        names = sorted(values)
        self.db.execute("INSERT INTO %s (%s) VALUES (%s)" % (self.name, ", ".join(names), ", ".join("?" * len(names))),
                        [values[n] for n in names])
