import logging
import sys

from .rows import StocktakeError, check_name, check_row, load_counts

log = logging.getLogger(__name__)


def import_file(name, text):
    try:
        rows = load_counts(name, text)
    except StocktakeError as e:
        log.error("%s (caused by %s: %s)", e, type(e.__cause__).__name__, e.__cause__)
        return None
    good, bad = [], 0
    for n, row in enumerate(rows, 1):
        try:
            good.append(check_row(n, row))
        except AssertionError as e:
            bad += 1
            log.warning("rejected: %s", e)
    log.info("%s: %d rows imported, %d rejected", name, len(good), bad)
    return bad


def main(files, max_rejected=1):
    failed = 0
    for name, text in files:
        try:
            check_name(name)
        except AssertionError as e:
            log.error(e)
            failed += 1
            continue
        bad = import_file(name, text)
        if bad is None or bad > max_rejected:
            failed += 1
    if failed:
        sys.exit(f"stocktake: {failed} of {len(files)} files failed")
    print(f"stocktake: {len(files)} files done")
