from .sources import Source


class CsvSource(Source):
    MSG_OPEN = "Opening CSV file %s"

    def check(self, row):
        if row and "," not in row:
            return "no separator in %r" % row
        return super().check(row)


class ApiSource(Source):
    MSG_OPEN = "Connecting to endpoint %s"
    MSG_ROWS = "Fetched %d records from %s"
    MSG_SKIP = "Dropping record %d of %s (%s)"

    def __init__(self, name, token):
        super().__init__(name)
        if not token:
            self.log.error("No API token for %s; requests will be anonymous", name)
