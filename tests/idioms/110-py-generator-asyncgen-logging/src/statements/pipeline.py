import logging

log = logging.getLogger(__name__)


def rows(lines):
    count = 0
    try:
        for n, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                log.debug("line %d skipped", n)
                continue
            count += 1
            yield n, line.split(";")
    finally:
        # also when the consumer stops early and the generator is closed
        log.debug("reader stopped after %d rows", count)


def amounts(numbered_rows):
    for n, fields in numbered_rows:
        try:
            yield fields[0], float(fields[1].replace(",", "."))
        except (IndexError, ValueError) as e:
            log.warning("line %d: no amount in %r (%s)", n, ";".join(fields), e)


def first_large(lines, threshold):
    for payee, amount in amounts(rows(lines)):
        if abs(amount) >= threshold:
            log.info("first payment over %.2f: %s %.2f", threshold, payee, amount)
            return payee
    log.info("no payment over %.2f", threshold)
    return None
