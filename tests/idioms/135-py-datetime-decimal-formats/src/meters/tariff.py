import logging
from decimal import ROUND_HALF_UP, Decimal

log = logging.getLogger(__name__)

CENT = Decimal("0.01")

# price per cubic metre up to each step
TIERS = [(Decimal(15), Decimal("1.85")), (Decimal(40), Decimal("2.40")), (None, Decimal("3.95"))]


def charge(cubic_m):
    total = Decimal(0)
    floor = Decimal(0)
    for top, price in TIERS:
        part = cubic_m - floor if top is None else min(cubic_m, top) - floor
        if part <= 0:
            break
        total += part * price
        log.debug("tier above %s m3: %s m3 at %s = %s", floor, part, price, (part * price).quantize(CENT))
        if top is None:
            break
        floor = top
    return total.quantize(CENT, rounding=ROUND_HALF_UP)
