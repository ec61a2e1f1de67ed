import logging

log = logging.getLogger(__name__)


class ValveStuck(Exception):
    def __init__(self, zone, position):
        super().__init__(f"valve of zone {zone} stuck at {position}%")
        self.zone = zone


class Valve:
    def __init__(self, zone, stuck=False):
        self.zone = zone
        self.stuck = stuck
        self.open = False

    def set_open(self, flag):
        if self.stuck:
            raise ValveStuck(self.zone, 40)
        self.open = flag
        log.debug("zone %s valve %s", self.zone, "opened" if flag else "closed")
