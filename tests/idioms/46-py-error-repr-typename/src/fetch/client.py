import logging

log = logging.getLogger(__name__)


def request(url, ms):
    if ms > 1000:
        raise TimeoutError(f"timeout after {ms}ms waiting for {url}")
    if "bad" in url:
        raise ValueError("invalid URL: " + url)
    return 200


def fetch_all(urls):
    for u, ms in urls:
        try:
            s = request(u, ms)
            log.info("GET %s %d", u, s)
        except TimeoutError as e:
            log.error(f"{type(e).__name__}: {e}")
        except ValueError as e:
            log.warning("%r", e)
    log.info("fetched %d urls", len(urls))
