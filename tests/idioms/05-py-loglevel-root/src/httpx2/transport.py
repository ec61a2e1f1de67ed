import logging

logger = logging.getLogger(__name__)
TRACE = 5
logging.addLevelName(TRACE, "TRACE")


def send(method, url, status):
    level = logging.WARNING if status >= 400 else logging.DEBUG
    logger.log(level, "HTTP %s %s -> %d", method, url, status)
    logger.log(TRACE, "wire: sent request line for %s", url)


def configure(verbose):
    logging.info("Transport configured (verbose=%s)", verbose)
    if not verbose:
        logging.warning("Verbose logging disabled; set HTTPX2_DEBUG=1 to enable")


def retry(url, n):
    logging.getLogger(__name__).log(logging.INFO, "Retry #%d for %s", n, url)
    logging.log(logging.ERROR, "Giving up on %s", url)
