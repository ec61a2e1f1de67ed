from .logs import get_logger

log = get_logger(__name__)

LANE_METRES = {"car": 5, "van": 7, "truck": 16, "bike": 2}


class Deck:
    def __init__(self, name, lanes, lane_length):
        self.name = name
        self.free = lanes * lane_length

    def stow(self, vehicle, plate):
        need = LANE_METRES[vehicle]
        if need > self.free:
            log.notice("%s deck full: %s %s needs %d m, %d m free", self.name, vehicle, plate, need, self.free)
            return False
        self.free -= need
        log.debug("%s %s stowed on the %s deck", vehicle, plate, self.name)
        return True
