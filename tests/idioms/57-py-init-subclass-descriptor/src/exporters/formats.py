import logging

from .base import Bounded, Exporter, alias

log = logging.getLogger(__name__)


class TextExporter(Exporter):
    level = Bounded(0, 9)

    def export(self, rows, level):
        self.level = level
        log.info("Writing %d rows at compression %d", len(rows), self.level)


class CsvExporter(TextExporter, ext="csv"):
    pass


@alias("tsv")
class TabExporter(TextExporter, ext="tab"):
    width = Bounded(1, 8)
