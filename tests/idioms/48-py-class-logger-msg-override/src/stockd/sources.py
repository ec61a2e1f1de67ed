import logging


class Source:
    MSG_OPEN = "Opening source %s"
    MSG_ROWS = "Read %d rows from %s"
    MSG_SKIP = "Skipping row %d of %s: %s"

    def __init__(self, name):
        self.name = name
        self.log = logging.getLogger(f"{__name__}.{type(self).__name__}")

    def load(self, rows):
        self.log.info(self.MSG_OPEN, self.name)
        good = 0
        for i, row in enumerate(rows):
            problem = self.check(row)
            if problem:
                self.log.warning(self.MSG_SKIP, i, self.name, problem)
            else:
                good += 1
        self.log.info(self.MSG_ROWS, good, self.name)
        return good

    def check(self, row):
        return None if row else "empty row"
