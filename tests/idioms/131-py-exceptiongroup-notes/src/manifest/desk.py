import asyncio
import logging

from .errors import CustomsError, RateUnavailable, WeightError
from .rates import all_rates
from .validate import validate

log = logging.getLogger(__name__)


def notes(e):
    return "; ".join(getattr(e, "__notes__", []))


class Desk:
    def __init__(self, port):
        self.port = port

    def clear(self, manifest_id, lines, currencies):
        try:
            validate(manifest_id, lines)
        except* WeightError as eg:
            for e in eg.exceptions:
                log.warning("weight: %s (%s)", e, notes(e))
        except* CustomsError as eg:
            log.error("%s: %d customs problem(s) held at %s", manifest_id, len(eg.exceptions), self.port)
            for e in eg.exceptions:
                log.error("  customs: %s [%s]", e, notes(e))
        else:
            log.info("manifest %s cleared at %s", manifest_id, self.port)
        rates = None
        try:
            rates = asyncio.run(all_rates(currencies))
        except* RateUnavailable as eg:
            missing = sorted(str(e) for e in eg.exceptions)
            log.warning("duties for %s not computed: %s", manifest_id, ", ".join(missing))
        else:
            log.debug("rates for %s: %s", manifest_id, rates)
        return rates
