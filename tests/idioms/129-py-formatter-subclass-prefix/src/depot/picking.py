import logging

from .stock import Shortage

log = logging.getLogger(__name__)


class PickList:
    def __init__(self, order_id, lines):
        self.order_id = order_id
        self.lines = lines

    def pick(self, stock):
        picked = 0
        for sku, qty in self.lines:
            try:
                stock.take(sku, qty)
            except Shortage:
                log.exception("order %s short", self.order_id)
                continue
            except KeyError:
                log.error("order %s names an unknown sku %s", self.order_id, sku)
                continue
            picked += 1
        log.info("order %s: %d of %d lines picked", self.order_id, picked, len(self.lines))
        return picked
