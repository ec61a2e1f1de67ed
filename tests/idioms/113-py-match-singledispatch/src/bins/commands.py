import logging

from .audit import describe

log = logging.getLogger(__name__)


def apply(store, command):
    match command:
        case {"op": "add", "sku": str(sku), "qty": int(qty)} if qty > 0:
            store[sku] = store.get(sku, 0) + qty
            log.info("added %d x %s", qty, sku)
            describe(qty)
        case {"op": "remove", "sku": str(sku), "qty": int(qty)}:
            have = store.get(sku, 0)
            if have < qty:
                log.error("cannot remove %d x %s, only %d in stock", qty, sku, have)
                return
            store[sku] = have - qty
            describe(-qty)
        case ["move", sku, bin_name]:
            log.info("moving %s to bin %s", sku, bin_name)
        case {"op": op}:
            log.warning("unsupported operation %r", op)
        case _:
            log.error("malformed command: %r", command)


def reorder_watch(limit):
    def watch(sku, level):
        if level < limit:
            log.warning("%s below %d (now %d), reorder placed", sku, limit, level)
        return level < limit
    return watch


def run(commands, limit, recounts=()):
    store = {}
    for command in commands:
        apply(store, command)
    describe(list(recounts))
    watch = reorder_watch(limit)
    return [sku for sku, level in sorted(store.items()) if watch(sku, level)]
