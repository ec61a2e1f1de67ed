import logging

log = logging.getLogger(__name__)


class Shortage(Exception):
    pass


class Stock:
    def __init__(self, bays):
        self.bays = {sku: dict(bay) for sku, bay in bays.items()}

    def take(self, sku, qty):
        bay = self.bays.get(sku)
        if bay is None:
            raise KeyError(sku)
        if bay["qty"] < qty:
            raise Shortage("%s: %d wanted, %d on hand" % (sku, qty, bay["qty"]))
        bay["qty"] -= qty
        log.debug("took %d x %s from bay %s", qty, sku, bay["at"])
        if bay["qty"] < bay.get("reorder", 0):
            log.warning("%s below its reorder point (%d left)", sku, bay["qty"])
        return bay["at"]
