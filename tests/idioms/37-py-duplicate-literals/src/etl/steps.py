import logging

log = logging.getLogger(__name__)


def extract(src):
    log.info("Extracting from %s", src)
    log.info("Done")


def transform(rows):
    log.info("Transforming %d rows", rows)
    log.info("Done")


def load(dst):
    log.info("Loading into %s", dst)
    log.info("Done")


def pipeline(src, rows, dst):
    extract(src)
    transform(rows)
    load(dst)
