import logging

log = logging.getLogger(__name__)


class OutOfStock(Exception):
    pass


def _route_summary(stops):
    # walks the whole route: only worth it when the debug record is kept
    return " -> ".join(f"{aisle}{bay:02d}" for aisle, bay in stops)


class Wave:
    """One picking wave: commits when its block ends, rolls back on an error."""

    def __init__(self, number, stock):
        self.number = number
        self.stock = stock
        self.picked = 0

    def __enter__(self):
        log.info("wave %d opened with %d SKUs in stock", self.number, len(self.stock))
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            log.info("wave %d closed: %d lines picked", self.number, self.picked)
            return False
        log.exception("wave %d aborted after %d lines", self.number, self.picked)
        return issubclass(exc_type, OutOfStock)

    def pick(self, sku, qty):
        have = self.stock.get(sku, 0)
        if have < qty:
            raise OutOfStock(f"{sku}: need {qty}, have {have}")
        self.stock[sku] = have - qty
        self.picked += 1


class Picker:
    def __init__(self, name):
        self.name = name

    def plan(self, stops):
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s route: %s", self.name, _route_summary(stops))
        if len(stops) > 4 and log.isEnabledFor(logging.INFO):
            log.info("%s has a long route of %d stops", self.name, len(stops))

    def run(self, wave, lines):
        try:
            for sku, qty in lines:
                wave.pick(sku, qty)
        finally:
            log.debug("%s released the cart after %d lines", self.name, wave.picked)


def run_wave(number, stock, picker_name, stops, lines):
    picker = Picker(picker_name)
    picker.plan(stops)
    with Wave(number, stock) as wave:
        picker.run(wave, lines)
        return True
    log.warning("wave %d left %d of %d lines unpicked", number, len(lines) - wave.picked, len(lines))
    return False
